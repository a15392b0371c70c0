/**
 * The command line's history, as a value: pure functions, so browsing is tested without Ink.
 * `index` is the entry shown while browsing (undefined: not browsing); `draft` is the line that
 * was being typed when browsing started, given back when browsing goes past the newest entry.
 */
export interface CommandHistory {
  readonly entries: readonly string[];
  readonly index?: number;
  readonly draft: string;
}

export const EMPTY_HISTORY: CommandHistory = { entries: [], draft: '' };

/** Entries kept. */
export const HISTORY_LIMIT = 100;

/** After Enter: appends the line (not a blank one, not a repeat of the last) and stops browsing. */
export function recordHistory(h: CommandHistory, line: string, limit = HISTORY_LIMIT): CommandHistory {
  const text = line.trim();
  const entries = text === '' || h.entries.at(-1) === text ? h.entries : [...h.entries, text].slice(-limit);
  return { entries, draft: '' };
}

/** ↑: one entry older. `current` is the line on screen (kept as the draft when browsing starts). */
export function historyPrevious(h: CommandHistory, current: string): { history: CommandHistory; value: string } {
  if (h.entries.length === 0) return { history: h, value: current };
  const index = h.index === undefined ? h.entries.length - 1 : Math.max(0, h.index - 1);
  const draft = h.index === undefined ? current : h.draft;
  return { history: { ...h, index, draft }, value: h.entries[index]! };
}

/** ↓: one entry newer; past the newest, the draft comes back and browsing ends. */
export function historyNext(h: CommandHistory, current: string): { history: CommandHistory; value: string } {
  if (h.index === undefined) return { history: h, value: current };
  const index = h.index + 1;
  if (index >= h.entries.length) return { history: { entries: h.entries, draft: '' }, value: h.draft };
  return { history: { ...h, index }, value: h.entries[index]! };
}

/** Any edit of the line ends browsing (the edited line is a new draft). */
export function stopBrowsing(h: CommandHistory): CommandHistory {
  return h.index === undefined ? h : { entries: h.entries, draft: '' };
}
