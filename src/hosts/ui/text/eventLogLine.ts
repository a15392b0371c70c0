import type { McpLiveEvent, ReconcileEvent } from '../../../model/report/events.js';
import { terminalSafe } from '../../../model/terminalText.js';
import { formatClock } from './formatClock.js';

/** One line of the live log. */
export interface LogLine {
  /** Stable React key: the event's time plus its position in the session. */
  id: number;
  ts: number;
  text: string;
  color?: 'red' | 'yellow' | 'cyan' | 'gray';
  /** The file a settings error is about: its `settings-ok` takes the line away. */
  file?: string;
}

/**
 * A pass in the compact form of the session's log (docs/contract.md, "Interactive session"):
 * `+c ~b -d  kept 5  312 ms`, names per change kind (`~` = reconnected or updated in place, `⊘` =
 * newly blocked), `no changes` for an idle pass; `kept 5`: the servers the pass left running as
 * they were.
 */
export function formatReconcile(e: ReconcileEvent): string {
  const groups: string[] = [];
  const group = (sign: string, names: readonly string[]) => {
    if (names.length > 0) groups.push(`${sign}${names.map(one).join(',')}`);
  };
  group('+', e.added);
  group('~', [...e.reconnected, ...e.updated]);
  group('-', e.removed);
  group('⊘', e.blocked);
  const changes = groups.length > 0 ? groups.join(' ') : 'no changes';
  // The servers left running, not every name left as it was (a blocked one runs nothing: decision 329).
  return `${changes}  kept ${e.kept}  ${Math.round(e.ms)} ms  (${e.trigger})`;
}

/**
 * The log line for an event, or undefined for events the log does not show (`server` changes
 * are in the list, `result`s in the command output, debug/info logs are noise here). Every piece
 * that came from a file or a server — names, paths, errors, messages, URLs — is terminal-safe
 * (decision 164): the line is printed by the UI and by `serve` on stderr alike.
 */
export function eventLogText(e: McpLiveEvent): Omit<LogLine, 'id'> | undefined {
  switch (e.type) {
    case 'reconcile':
      return { ts: e.ts, text: formatReconcile(e) };
    case 'settings-error':
      return {
        ts: e.ts,
        text: `settings error: ${many(e.error.startsWith(e.file) ? e.error : `${e.file}: ${e.error}`)} (last good content kept)`,
        color: 'red',
        file: e.file,
      };
    case 'settings-ok':
      return { ts: e.ts, text: `settings ok: ${one(e.file)} reads cleanly again`, color: 'gray' };
    case 'restart-required':
      return { ts: e.ts, text: `restart required for ${e.keys.map(one).join(', ')} (${one(e.file)})`, color: 'yellow' };
    case 'auth-required':
      return { ts: e.ts, text: `authorize ${one(e.server)}: open ${one(e.url)}`, color: 'cyan' };
    case 'surface-changed': {
      // What changed, by tool; the texts themselves are in the event and the dialog (decision 197).
      // A line with no item (`name` '') is a note: the count of the rest, or a pin missing (decision 309).
      const what = e.changes
        .slice(0, 3)
        .map((c) =>
          c.kind === 'instructions'
            ? 'instructions changed'
            : c.name === ''
              ? one(c.after ?? '')
              : `${c.kind} ${one(c.name)} ${c.change === 'added' || c.change === 'removed' ? c.change : `${c.change} changed`}`,
        );
      const more = e.changes.length > 3 ? `, ${e.changes.length - 3} more` : '';
      const held = e.withheld?.length ? `; ${e.withheld.length} ${e.withheld.length === 1 ? 'tool' : 'tools'} withheld until approved` : '';
      return { ts: e.ts, text: `~ ${one(e.server)}: ${what.join(', ')}${more}${held}`, color: e.withheld?.length ? 'yellow' : 'cyan' };
    }
    case 'approval-required':
      return { ts: e.ts, text: `approval required: ${e.servers.map((s) => one(s.name)).join(', ')}`, color: 'cyan' };
    case 'log':
      if (e.level === 'warn') return { ts: e.ts, text: `warning: ${many(e.message)}`, color: 'yellow' };
      if (e.level === 'error') return { ts: e.ts, text: `error: ${many(e.message)}`, color: 'red' };
      return undefined;
    default:
      return undefined;
  }
}

/**
 * The log after one more event (the last `max` lines): its line appended — for `settings-ok`
 * after that file's error lines are taken away, since what they report is fixed, so the log says
 * it was fixed rather than going quiet. `id` is the event's position in the session. Returns
 * `lines` itself when nothing changed.
 */
export function nextLogLines(lines: readonly LogLine[], e: McpLiveEvent, id: number, max: number): readonly LogLine[] {
  const line = eventLogText(e);
  if (line === undefined) return lines;
  const kept = e.type === 'settings-ok' ? lines.filter((l) => l.file !== e.file) : lines;
  return [...kept, { ...line, id }].slice(-max);
}

/** `HH:MM:SS  text`: the line as printed. */
export function formatLogLine(line: Pick<LogLine, 'ts' | 'text'>): string {
  return `${formatClock(line.ts)}  ${line.text}`;
}

/** A name, a path, a URL: one line, its `\n` shown. */
function one(text: string): string {
  return terminalSafe(text);
}

/** An error or a message: its lines kept, continuation lines indented. */
function many(text: string): string {
  return terminalSafe(text, { multiline: true, indent: '  ' });
}
