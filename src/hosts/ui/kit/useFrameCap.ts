import { useStdout, type DOMElement } from 'ink';
import { useLayoutEffect, type RefObject } from 'react';
import { useTerminalRows } from './useTerminalRows.js';

/** What a terminal that does not say its height (a pipe, a test) is taken to have. */
export const DEFAULT_ROWS = 24;

/**
 * Keeps the frame rooted at `ref` at least one row shorter than the terminal. Its regions are
 * given rows to fit (see `useRowBudget`); this cut is the guard for a frame drawn before they
 * were (a dialog that just appeared), and its bottom is what goes for that one frame. Returns the
 * terminal's height in rows.
 *
 * Why one row short: a frame as tall as the terminal makes Ink clear the whole screen and the
 * scrollback on the next draw, and write the frame without its final line break — so the shell's
 * prompt after exit lands on the UI's last line. Why before Ink's own `resize` listener: Ink
 * redraws at once on a resize, and must already lay the frame out for the new height.
 */
export function useFrameCap(ref: RefObject<DOMElement | null>): number {
  const { stdout } = useStdout();
  // State, so the session draws again (and its views measure again) after a resize.
  const rows = useTerminalRows() ?? DEFAULT_ROWS;
  useLayoutEffect(() => {
    const apply = (): void => {
      setMaxHeight(ref.current, Math.max(1, (stdout.rows || DEFAULT_ROWS) - 1));
    };
    apply();
    stdout.prependListener('resize', apply);
    return () => {
      stdout.off('resize', apply);
    };
  }, [stdout, ref]);
  return rows;
}

/** Why on the Yoga node: Ink's `Box` has no `maxHeight` (only `height` and `minHeight`), Yoga does. */
function setMaxHeight(element: DOMElement | null, rows: number): void {
  element?.yogaNode?.setMaxHeight(rows);
}
