import type { ReviewLine } from '../../../model/admission/reviewEntry.js';
import { hasUnsafeCharacters, UNSAFE_TEXT_NOTE } from '../../../model/terminalText.js';

/** Why a line of an entry under review deserves a second look: highlighted, with a short note. */
export interface ReviewLineRisk {
  note?: string;
}

/**
 * Picks out the lines of an entry that change what a familiar-looking command does or what it
 * sends away, so they stand out in the approval dialog: every `env` line (`NODE_OPTIONS`,
 * `LD_PRELOAD` turn `node server.js` into anything), a `cwd` — or a language server's
 * `workspaceFolder`, the root it reads — that leaves the workspace or comes from the environment,
 * `trust: true` (its tool calls skip confirmation), a `headersHelper` (a command run at every
 * connect), a root outside the workspace, a header that carries an environment
 * variable, a language server's `socket` on another host (the documents it is sent leave this
 * machine), and the list of variables the entry reads — and any line whose value holds a
 * control, escape, bidi or invisible character (decision 165): shown escaped, and said so, since
 * a file has no honest use for them there. `undefined`: an ordinary line.
 */
export function reviewLineRisk(line: ReviewLine): ReviewLineRisk | undefined {
  const risk = riskOfField(line);
  if (!hasUnsafeCharacters(line.value)) return risk;
  return { note: risk?.note === undefined ? UNSAFE_TEXT_NOTE : `${risk.note}; ${UNSAFE_TEXT_NOTE}` };
}

function riskOfField({ label, value }: ReviewLine): ReviewLineRisk | undefined {
  switch (label) {
    case 'env':
    case 'reads':
      return {};
    case 'header':
      return REFERENCE.test(value) ? {} : undefined;
    case 'trust':
      return value === 'true' ? { note: 'its tool calls run without asking you' } : undefined;
    case 'socket':
      return remoteSocket(value) ? { note: 'your open files go to another machine' } : undefined;
    case 'headersHelper':
      // A command of the entry's own, run at every connect (decision 240).
      return { note: 'runs this command on your machine at every connect' };
    case 'root':
      // A directory the server is told it may work in (decision 243).
      if (value.startsWith('$')) return { note: 'set by your environment' };
      return leavesWorkspace(value) || /^file:/i.test(value) ? { note: 'outside the workspace' } : undefined;
    case 'cwd':
    case 'workspaceFolder':
      if (value.startsWith('$')) return { note: 'set by your environment' };
      return leavesWorkspace(value) ? { note: 'outside the workspace' } : undefined;
    default:
      return undefined;
  }
}

const REFERENCE = /\$\{?[A-Za-z_]/;

/** A socket entry as written (a port, `{ "port", "host" }`, `{ "path" }`) whose host is not this machine. */
function remoteSocket(value: string): boolean {
  const host = /"host"\s*:\s*"([^"]*)"/.exec(value)?.[1];
  return host !== undefined && !/^(localhost|127(\.\d{1,3}){3}|::1|\[::1\])$/i.test(host);
}

/** Absolute (POSIX, Windows, `~`) or climbing out with a `..` segment. */
function leavesWorkspace(path: string): boolean {
  return /^(~|[\\/]|[A-Za-z]:)/.test(path) || path.split(/[\\/]/).includes('..');
}
