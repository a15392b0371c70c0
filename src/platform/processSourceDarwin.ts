import type { ProcessStat } from './processStat.js';

/**
 * The process table of macOS, which has no /proc (decision 280): one `ps` call lists
 * every process with what the Linux code reads from `/proc/<pid>/stat` — except the session id,
 * which macOS's ps does not give (its `sess` is a kernel pointer).
 *
 *   /bin/ps -ww -axo pid=,ppid=,pgid=,uid=,stat=,lstart=
 *     501   1   501  501 Ss   Thu Dec  3 09:12:01 2026
 *
 * The empty headers (`pid=`) leave out the header line; `-ww` never cuts a line. `lstart` is
 * strftime's `%c` of the start time: the C locale makes it `Thu Dec  3 09:12:01 2026` whatever
 * the user's LANG (a German `%c` reads `Do  3 Dez 09:12:01 2026`), and TZ=UTC0 makes it UTC, so
 * it reads back as seconds since the epoch without a time zone or a DST hour in between. The
 * start time of a process is therefore in whole seconds since the epoch on macOS (clock ticks
 * since boot on Linux): the identity pid + start time is as good as long as a pid does not come
 * round again within the same second.
 */

/** By full path: never a `ps` that a PATH entry (or a repository) put first. */
export const PS_FILE = '/bin/ps';
export const PS_ARGS: readonly string[] = ['-ww', '-axo', 'pid=,ppid=,pgid=,uid=,stat=,lstart='];
/** The environment `ps` runs in (nothing of ours passed on): C locale, UTC. */
export const PS_ENV: NodeJS.ProcessEnv = { LC_ALL: 'C', TZ: 'UTC0' };

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const LSTART = /^[A-Z][a-z]{2} ([A-Z][a-z]{2}) +(\d{1,2}) (\d{2}):(\d{2}):(\d{2}) (\d{4})$/;

/** `Thu Dec  3 09:12:01 2026` (UTC) as seconds since the epoch; `undefined` when it is not that shape. */
export function parseLstart(text: string): number | undefined {
  const match = LSTART.exec(text.trim());
  if (!match) return undefined;
  const [, month, day, hours, minutes, seconds, year] = match;
  const monthIndex = MONTHS.indexOf(month!);
  if (monthIndex < 0) return undefined;
  const ms = Date.UTC(Number(year), monthIndex, Number(day), Number(hours), Number(minutes), Number(seconds));
  const date = new Date(ms);
  // Date.UTC rolls Feb 31 over into March: a day that does not exist is not a start time.
  if (date.getUTCDate() !== Number(day) || Number(hours) > 23 || Number(minutes) > 59 || Number(seconds) > 59) return undefined;
  return ms / 1000;
}

/**
 * The output of {@link PS_ARGS}, one {@link ProcessStat} per line that has every field; a header
 * line, a blank line and anything cut short are skipped. The state is the first letter of
 * `stat` (R, S, I, T, U, Z; the rest are flags such as `s` for a session leader, `+` for the
 * foreground). No `sid`: macOS's ps has none.
 */
export function parsePsTable(text: string): ProcessStat[] {
  const table: ProcessStat[] = [];
  for (const line of text.split('\n')) {
    const fields = line.trim().split(/\s+/);
    if (fields.length !== 10) continue;
    const [pid, ppid, pgid, uid] = fields.slice(0, 4).map((field) => (/^\d+$/.test(field) ? Number(field) : NaN));
    const stat = fields[4]!;
    const startTime = parseLstart(fields.slice(5).join(' '));
    if (![pid, ppid, pgid, uid].every((n) => Number.isSafeInteger(n)) || !/^[A-Z]/.test(stat) || startTime === undefined) continue;
    table.push({ pid: pid!, state: stat[0]!, ppid: ppid!, pgid: pgid!, startTime, uid: uid! });
  }
  return table;
}
