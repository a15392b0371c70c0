import { Box } from 'ink';
import { Text } from '../kit/Text.js';
import { useRef, useState } from 'react';
import { EMPTY_HISTORY, historyNext, historyPrevious, recordHistory, stopBrowsing, type CommandHistory } from './commandHistory.js';
import type { Completion } from './completeCommandLine.js';
import { KEY_PRIORITY, useKeys } from '../kit/keys.js';
import { useLayoutSync } from '../kit/layoutSync.js';

export interface CommandLineProps {
  /** Enter on a non-blank line. */
  onSubmit: (line: string) => void;
  /** Tab: the completed line and the candidates to list. */
  complete?: (value: string) => Completion;
  isActive?: boolean;
  /** Shown after the line, dimmed (e.g. "running /call…"). */
  status?: string;
  /**
   * Keys an empty line leaves to the view (`a` in a pending server's detail, decision 330): a line
   * they would start cannot be a command, which starts with `/`.
   */
  shortcuts?: readonly string[];
}

interface LineState {
  value: string;
  cursor: number;
  history: CommandHistory;
  candidates: readonly string[];
}

const EMPTY_LINE: LineState = { value: '', cursor: 0, history: EMPTY_HISTORY, candidates: [] };

/**
 * A small controlled input on Ink's key events (no text-input dependency): insert at the cursor,
 * ←/→ and Home/End, Backspace, Ctrl-U and Esc clear, Tab completes, ↑/↓ browse this session's
 * history, Enter submits.
 *
 * While the line is empty, ↑ ↓ Home End Enter and Esc are not its own: they pass on to the list
 * and the detail view (see {@link KeyRouter}); the first character typed takes them over. The
 * state is kept in a ref as well, so several keys handled before React renders (a paste, a fast
 * typist) each see the previous key's result.
 */
export function CommandLine({ onSubmit, complete, isActive = true, status, shortcuts }: CommandLineProps) {
  const [line, setLine] = useState<LineState>(EMPTY_LINE);
  const ref = useRef<LineState>(EMPTY_LINE);

  const update = (next: LineState): true => {
    ref.current = next;
    setLine(next);
    return true;
  };
  const edit = (value: string, cursor: number): LineState => ({
    value,
    cursor,
    history: stopBrowsing(ref.current.history),
    candidates: [],
  });

  const insert = (text: string) => {
    const s = ref.current;
    if (text !== '') update(edit(s.value.slice(0, s.cursor) + text + s.value.slice(s.cursor), s.cursor + text.length));
  };
  const submitLine = (): true => {
    const s = ref.current;
    const text = s.value.trim();
    update({ ...EMPTY_LINE, history: text === '' ? stopBrowsing(s.history) : recordHistory(s.history, text) });
    if (text !== '') onSubmit(text);
    return true;
  };

  useKeys(
    (input, key) => {
      const s = ref.current;
      const typed = s.value !== '';
      const browsing = s.history.index !== undefined;
      if (key.return) return typed && submitLine();
      if (key.tab) {
        if (!complete) return true;
        const c = complete(s.value);
        return update({ ...s, value: c.value, cursor: c.value.length, candidates: c.candidates });
      }
      if (key.upArrow) {
        if (!typed && !browsing) return false;
        const { history, value } = historyPrevious(s.history, s.value);
        return update({ value, cursor: value.length, history, candidates: [] });
      }
      if (key.downArrow) {
        if (!browsing) return typed; // nothing newer; a typed line keeps the key from the list
        const { history, value } = historyNext(s.history, s.value);
        return update({ value, cursor: value.length, history, candidates: [] });
      }
      if (key.escape) return typed && update({ ...EMPTY_LINE, history: stopBrowsing(s.history) });
      // An empty line leaves Home/End to the list and the views (see KeyRouter).
      if (key.home) return typed && update({ ...s, cursor: 0 });
      if (key.end) return typed && update({ ...s, cursor: s.value.length });
      if (key.leftArrow) return update({ ...s, cursor: Math.max(0, s.cursor - 1) });
      if (key.rightArrow) return update({ ...s, cursor: Math.min(s.value.length, s.cursor + 1) });
      if (key.backspace || key.delete) {
        // Most terminals send DEL (0x7f) for Backspace, which Ink reports as `delete`.
        if (s.cursor === 0) return true;
        return update(edit(s.value.slice(0, s.cursor - 1) + s.value.slice(s.cursor), s.cursor - 1));
      }
      if (key.ctrl && input === 'u') return update({ ...EMPTY_LINE, history: stopBrowsing(s.history) });
      if (key.ctrl || key.meta || input === '') return false;
      if (!typed && shortcuts?.includes(input)) return false;
      // Text arrives whole when pasted or typed fast; a line break in it is an Enter.
      const [firstPiece = '', ...lines] = input.replace(/\t/g, ' ').split(/\r\n|\r|\n/);
      insert(firstPiece);
      for (const piece of lines) {
        submitLine();
        insert(piece);
      }
      return true;
    },
    { priority: KEY_PRIORITY.commandLine, isActive },
  );
  // A long line wraps and a Tab lists completions: the views above get fewer rows.
  useLayoutSync();

  const before = line.value.slice(0, line.cursor);
  const at = line.value.charAt(line.cursor) || ' ';
  const after = line.value.slice(line.cursor + 1);
  return (
    <Box flexDirection="column">
      <Text>
        <Text color={isActive ? 'cyan' : 'gray'}>› </Text>
        {line.value === '' ? (
          <>
            {isActive && <Text inverse> </Text>}
            <Text color="gray">{isActive ? ' ' : ''}type / for commands</Text>
          </>
        ) : (
          <>
            {before}
            {isActive ? <Text inverse>{at}</Text> : at}
            {after}
          </>
        )}
        {status !== undefined && <Text color="gray"> {status}</Text>}
      </Text>
      {line.candidates.length > 0 && <Text color="gray">{line.candidates.join('  ')}</Text>}
    </Box>
  );
}
