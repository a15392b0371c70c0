import { Box, measureElement, type DOMElement } from 'ink';
import { Text } from './Text.js';
import { createContext, useMemo, useRef, useState, type ReactNode, type RefObject } from 'react';
import { useKeys, useSyncState } from './keys.js';
import { useLayoutSync } from './layoutSync.js';
import { revealOffset, scrollStep, scrollWindow } from './scrollWindow.js';
import { plural } from '../../../model/report/messages.js';

export interface ScrollViewProps {
  children: ReactNode;
  /**
   * Scroll keys, asked at `priority` (see {@link KeyRouter}): PgUp/PgDn a page, Home/End the ends,
   * and ↑/↓ a line unless `lines` is false. Taken only while the content overflows, so a view that
   * fits leaves them to the next handler.
   */
  keys?: { priority: number; isActive?: boolean; lines?: boolean };
  /** Content rows `[start, end)` kept in view (a selected row). */
  reveal?: readonly [number, number];
  /** Another value starts the view at its top (at its end with `stickToBottom`): another entry, another server. */
  resetKey?: string;
  /** Starts at the end of the content and stays there unless scrolled (a log: the newest lines). */
  stickToBottom?: boolean;
  /** The keys named in the hint line under an overflowing view (default "PgUp/PgDn scroll"); false: no hint line. */
  hint?: string | false;
  /** Told how many rows are in view (for paging a selection by a screenful). */
  onViewport?: (rows: number) => void;
}

/** What a scrolled view shows of its content: rows `[start, start + rows)`; `WindowedRows` draws only those (decision 192). */
export interface ScrollViewport {
  start: number;
  rows: number;
  /** The content's box, to which `start` is relative. */
  content: RefObject<DOMElement | null>;
}

export const ScrollViewportContext = createContext<ScrollViewport | undefined>(undefined);

/**
 * The one scrolling component of the terminal UI: its content keeps its natural height inside a
 * box that gets the rows its region of the screen was given (see `useRowBudget`; the session's
 * frame never outgrows the terminal), shifted up by the scroll offset and clipped. How many rows
 * it got and how tall its content is are measured after each commit (see {@link useLayoutSync}),
 * so a wrapped line or a section title counts as the rows it really takes. While the content
 * overflows, the last row says what is hidden and how to see it: "↑ 3 lines above · ↓ 12 more
 * lines · PgUp/PgDn scroll".
 */
export function ScrollView({ children, keys, reveal, resetKey = '', stickToBottom = false, hint = 'PgUp/PgDn scroll', onViewport }: ScrollViewProps) {
  const outerRef = useRef<DOMElement>(null);
  const contentRef = useRef<DOMElement>(null);
  // Measured after each commit: the rows it got (hint row included) and its content's.
  const [size, setSize] = useState({ outer: 0, content: 0 });
  // The rows of content in view, as last drawn (for the keys and `onViewport`).
  const viewportRef = useRef(0);
  const sizeRef = useRef(size);
  const initial = stickToBottom ? Infinity : 0;
  const [scroll, setScroll, scrollRef] = useSyncState({ key: resetKey, offset: initial });
  const offsetOf = (s: { key: string; offset: number }) => (s.key === resetKey ? s.offset : initial);

  const overflowing = size.content > size.outer;
  // The hint takes a row only where one is left for the content: a view of no rows measures no
  // content (Yoga does not lay out inside it), and would take the hint away again.
  const hinted = overflowing && hint !== false && size.outer >= 2;
  const viewport = size.outer - (hinted ? 1 : 0);
  const clamped = scrollWindow(offsetOf(scroll), size.content, viewport).start;
  const start = reveal && overflowing ? scrollWindow(revealOffset(clamped, reveal, viewport), size.content, viewport).start : clamped;
  const shown = scrollWindow(overflowing ? start : 0, size.content, viewport);
  const inView = useMemo(() => ({ start: shown.start, rows: viewport, content: contentRef }), [shown.start, viewport]);

  useLayoutSync(() => {
    const outer = outerRef.current ? measureElement(outerRef.current).height : 0;
    const content = contentRef.current ? measureElement(contentRef.current).height : 0;
    if (outer !== sizeRef.current.outer || content !== sizeRef.current.content) {
      sizeRef.current = { outer, content };
      setSize(sizeRef.current);
    }
    if (viewport !== viewportRef.current) {
      viewportRef.current = viewport;
      onViewport?.(viewport);
    }
    // A revealed row moved the view: keep it there, so the next move starts from what is shown.
    if (reveal && overflowing && start !== offsetOf(scrollRef.current)) setScroll({ key: resetKey, offset: start });
  });

  useKeys(
    (_input, key) => {
      const { content } = sizeRef.current;
      const rows = viewportRef.current;
      if (content <= sizeRef.current.outer) return false;
      const step = scrollStep(key, rows, { lines: keys?.lines ?? true });
      if (step === undefined) return false;
      const from = scrollWindow(offsetOf(scrollRef.current), content, rows).start;
      setScroll({ key: resetKey, offset: scrollWindow(from + step, content, rows).start });
      return true;
    },
    { priority: keys?.priority ?? 0, isActive: keys !== undefined && (keys.isActive ?? true) },
  );

  return (
    <Box ref={outerRef} flexDirection="column" flexShrink={1}>
      <Box flexDirection="column" flexShrink={1} overflowY="hidden">
        {/* Shifted up by the offset; the bottom margin gives the row back, so the view takes as many
            rows as its content whatever the offset (what the row budget measures). */}
        <Box ref={contentRef} flexDirection="column" flexShrink={0} marginTop={-shown.start} marginBottom={shown.start}>
          <ScrollViewportContext.Provider value={inView}>{children}</ScrollViewportContext.Provider>
        </Box>
      </Box>
      {hinted && (
        <Box flexShrink={0}>
          <Text color="gray" wrap="truncate-end">
            {hiddenText(shown)} · {hint}
          </Text>
        </Box>
      )}
    </Box>
  );
}

/** "↑ 3 lines above · ↓ 12 more lines" */
function hiddenText({ above, below }: { above: number; below: number }): string {
  const parts = [above > 0 ? `↑ ${plural(above, 'line')} above` : '', below > 0 ? `↓ ${plural(below, 'more line')}` : ''];
  return parts.filter((p) => p !== '').join(' · ');
}
