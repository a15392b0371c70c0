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
 * window. `Infinity` is the last page.
 */
export function scrollWindow(offset: number, total: number, height: number): ScrollWindow {
  const size = Math.max(1, height);
  const start = Math.min(Math.max(0, offset), Math.max(0, total - size));
  const end = Math.min(total, start + size);
  return { start, end, above: start, below: total - end };
}

/** The keys a scrolled view reads (Ink's `Key` has them all). */
export interface ScrollKey {
  upArrow: boolean;
  downArrow: boolean;
  pageUp: boolean;
  pageDown: boolean;
  home: boolean;
  end: boolean;
}

/**
 * The scroll step a key asks for, or undefined for other keys: PgUp/PgDn a page less one line of
 * context, Home/End to either end (±Infinity, clamped by {@link scrollWindow}), and ↑/↓ one line
 * unless the arrows belong to something else (`lines: false`, the approval dialog's options).
 */
export function scrollStep(key: ScrollKey, height: number, { lines = true }: { lines?: boolean } = {}): number | undefined {
  if (lines && key.upArrow) return -1;
  if (lines && key.downArrow) return 1;
  if (key.pageUp) return -Math.max(1, height - 1);
  if (key.pageDown) return Math.max(1, height - 1);
  if (key.home) return -Infinity;
  if (key.end) return Infinity;
  return undefined;
}

/** The offset nearest to `offset` that shows rows `[start, end)` (a selected row) in a `height`-row window. */
export function revealOffset(offset: number, [start, end]: readonly [number, number], height: number): number {
  if (start < offset) return start;
  if (end > offset + height) return end - Math.max(1, height);
  return offset;
}
