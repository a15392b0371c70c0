import { describe, expect, it } from 'vitest';
import {
  EMPTY_HISTORY,
  historyNext,
  historyPrevious,
  recordHistory,
  stopBrowsing,
  type CommandHistory,
} from '../../src/hosts/ui/commands/commandHistory.js';

const withEntries = (...lines: string[]): CommandHistory => lines.reduce((h, l) => recordHistory(h, l), EMPTY_HISTORY);

describe('command history', () => {
  it('records lines, but not blanks or a repeat of the last one, up to a limit', () => {
    expect(withEntries('/mcp', ' ', '/mcp', '/reload', '/mcp').entries).toEqual(['/mcp', '/reload', '/mcp']);
    expect(['a', 'b', 'c', 'd'].reduce((h, l) => recordHistory(h, l, 2), EMPTY_HISTORY).entries).toEqual(['c', 'd']);
  });

  it('↑ walks back to the oldest and stops there; ↓ walks forward and gives back the draft', () => {
    let h = withEntries('one', 'two', 'three');
    const seen: string[] = [];
    let value = '/dr';
    for (let i = 0; i < 4; i++) {
      ({ history: h, value } = historyPrevious(h, value));
      seen.push(value);
    }
    expect(seen).toEqual(['three', 'two', 'one', 'one']);
    const forward: string[] = [];
    for (let i = 0; i < 4; i++) {
      ({ history: h, value } = historyNext(h, value));
      forward.push(value);
    }
    expect(forward).toEqual(['two', 'three', '/dr', '/dr']);
    expect(h.index).toBeUndefined();
  });

  it('does nothing without entries, and ↓ does nothing when not browsing', () => {
    expect(historyPrevious(EMPTY_HISTORY, 'x')).toEqual({ history: EMPTY_HISTORY, value: 'x' });
    const h = withEntries('a');
    expect(historyNext(h, 'typed')).toEqual({ history: h, value: 'typed' });
  });

  it('an edit or a submit ends browsing', () => {
    const { history } = historyPrevious(withEntries('a', 'b'), '');
    expect(history.index).toBe(1);
    expect(stopBrowsing(history).index).toBeUndefined();
    expect(recordHistory(history, 'c')).toEqual({ entries: ['a', 'b', 'c'], draft: '' });
  });
});
