import { Box, type DOMElement } from 'ink';
import { useContext, useRef, useState, type ReactNode } from 'react';
import { useLayoutSync } from './layoutSync.js';
import { ScrollViewportContext } from './ScrollView.js';

/** A list longer than this is drawn a window at a time, one row per item (decision 192). */
export const WINDOWED_ABOVE = 200;
/** Items drawn beyond each edge of the view, so a step of a line never shows a blank row. */
const OVERSCAN = 10;
/** Rows assumed in view before the view was first measured. */
const UNMEASURED_ROWS = 100;

export interface WindowedRowsProps<T> {
  items: readonly T[];
  /** One item's element (keyed, as in a `map`): a line of text; in a windowed list, its first row. */
  row: (item: T, index: number) => ReactNode;
}

/**
 * A long list inside a {@link ScrollView} (a server's 100,000 tools, `/tools` of them all) at the
 * cost of what is in view (decision 192): above {@link WINDOWED_ABOVE} items, each item takes
 * exactly one row and only those in view (and {@link OVERSCAN} around them) are elements; the rest
 * are two empty boxes of their height, so the view measures, scrolls and says "↓ 99,950 more
 * lines" as for the whole list. A render, a key and a layout are O(rows in view), not O(items).
 * Shorter lists, and any outside a scrolled view, are drawn whole, wrapping as they always did.
 */
export function WindowedRows<T>({ items, row }: WindowedRowsProps<T>) {
  const view = useContext(ScrollViewportContext);
  const ref = useRef<DOMElement>(null);
  // Where the list starts within the view's content, measured after each commit.
  const [top, setTop] = useState(0);
  const topRef = useRef(0);
  const windowed = view !== undefined && items.length > WINDOWED_ABOVE;
  useLayoutSync(
    windowed
      ? () => {
          const measured = topWithin(ref.current, view.content.current);
          if (measured !== undefined && measured !== topRef.current) {
            topRef.current = measured;
            setTop(measured);
          }
        }
      : undefined,
  );
  if (!windowed) return <>{items.map(row)}</>;
  const rows = view.rows > 0 ? view.rows : UNMEASURED_ROWS;
  const first = Math.min(items.length, Math.max(0, view.start - top - OVERSCAN));
  const last = Math.min(items.length, Math.max(first, view.start - top + rows + OVERSCAN));
  return (
    <Box ref={ref} flexDirection="column" flexShrink={0}>
      {first > 0 && <Box height={first} flexShrink={0} />}
      {items.slice(first, last).map((item, i) => (
        <Box key={first + i} height={1} flexShrink={0} overflow="hidden">
          {row(item, first + i)}
        </Box>
      ))}
      {last < items.length && <Box height={items.length - last} flexShrink={0} />}
    </Box>
  );
}

/** The row at which `node` starts within `container` (a scrolled view's content), if inside it. */
function topWithin(node: DOMElement | null, container: DOMElement | null): number | undefined {
  let top = 0;
  for (let at: DOMElement | undefined = node ?? undefined; at !== undefined; at = at.parentNode) {
    if (at === container) return Math.round(top);
    top += at.yogaNode?.getComputedTop() ?? 0;
  }
  return undefined;
}
