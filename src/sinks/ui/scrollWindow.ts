/** The part of a list a scrolled view shows: `items.slice(start, end)`, and how many it hides. */
export interface ScrollWindow {
  start: number;
  end: number;
  above: number;
  below: number;
}

/**
 * Which `height` of `total` items show when scrolled to `offset`: the offset is clamped, so a list
 * that shrank under a scrolled view (a pending set emptied, an entry edited) never shows a blank
 * window.
 */
export function scrollWindow(offset: number, total: number, height: number): ScrollWindow {
  const size = Math.max(1, height);
  const start = Math.min(Math.max(0, offset), Math.max(0, total - size));
  const end = Math.min(total, start + size);
  return { start, end, above: start, below: total - end };
}

/** The scroll step a key asks for (↑/↓ one item, PgUp/PgDn a page), or undefined for other keys. */
export function scrollStep(
  key: { upArrow: boolean; downArrow: boolean; pageUp: boolean; pageDown: boolean },
  height: number,
): number | undefined {
  if (key.upArrow) return -1;
  if (key.downArrow) return 1;
  if (key.pageUp) return -Math.max(1, height - 1);
  if (key.pageDown) return Math.max(1, height - 1);
  return undefined;
}
