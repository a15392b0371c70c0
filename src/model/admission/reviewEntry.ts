import { entryForReview, markWrittenByRepository, referencedVariables } from '../settings/secrets.js';
import { GATED_SCOPES, type Scope, type ServerKind } from '../types.js';

/**
 * One line of an entry under review: a label and what the file says (a user-scope entry's
 * literal secrets masked). Raw: a line may hold any character the file did; whoever prints it
 * renders it with `terminalSafe` (decision 161).
 */
export interface ReviewLine {
  label: string;
  value: string;
}

/** An entry as a person approving it must see it (decision 54). */
export interface EntryReview {
  /** The entry as written, `${VAR}` references kept; a user-scope entry's literal secrets masked. */
  config: unknown;
  /** Every variable the entry reads from the user's environment, sorted. */
  readsEnv: string[];
  /** `command args…` or the URL, secrets masked: the one-line summary of the entry. */
  target: string;
  /** Everything that decides what runs or where data goes, one line a fact. */
  lines: ReviewLine[];
}

/**
 * What the approval dialog, `approval-required` and `plan` show of an entry: command and args,
 * `cwd`, every env key with its value as written, the URL, every header with its value as
 * written, the `headersHelper` command (a process it runs at every connect), every root it is
 * given, `type`, `trust`, `timeout`, `disabled`, and the environment variables it reads — so
 * `env: {NODE_OPTIONS: "--require ./evil.cjs"}` or a header carrying `${GITHUB_TOKEN}` is never
 * approved unseen. Values are taken from {@link entryForReview}: a gated entry's (`scope`
 * `project` or `workspace`) exactly as written, another's with its literal secrets masked;
 * references stay references in both, never expanded (decision 166).
 *
 * A language server's entry (`kind` `lsp`, decision 150) also shows its transport, socket, workspace
 * folder, the files it gets (`extensionToLanguage`) and its `initializationOptions` and
 * `settings` whole: a language server's settings can name executables it runs (an interpreter,
 * a linter), so they decide what runs as much as `command` does.
 */
export function reviewEntry(entry: unknown, kind: ServerKind = 'mcp', scope?: Scope): EntryReview {
  const config = entryForReview(entry, scope);
  const lines: ReviewLine[] = [];
  // A gated entry's lines are its own text: the session-wide net masks real secrets only in them (decision 167).
  if (scope !== undefined && GATED_SCOPES.has(scope)) markWrittenByRepository(lines);
  const readsEnv = referencedVariables(entry);
  const target = targetOf(config);
  if (config === null || typeof config !== 'object' || Array.isArray(config)) {
    lines.push({ label: 'entry', value: `${JSON.stringify(config) ?? String(config)} (not an object: it cannot run)` });
    return { config, readsEnv, target, lines };
  }
  const c = config as Record<string, unknown>;
  const field = (key: string): unknown => (Object.hasOwn(c, key) ? c[key] : undefined);
  const push = (label: string, value: unknown): void => {
    if (value !== undefined) lines.push({ label, value: typeof value === 'string' ? value : JSON.stringify(value) });
  };

  const command = field('command');
  const args = field('args');
  if (command !== undefined) {
    const words = [command, ...(Array.isArray(args) ? (args as unknown[]) : [])].map(shellWord);
    push('command', words.join(' '));
    if (args !== undefined && !Array.isArray(args)) push('args', args);
  } else {
    push('args', args);
  }
  push('cwd', field('cwd'));
  // The directories a server is told it may work in (decision 243): one line each, like `cwd`.
  const roots = field('roots');
  if (Array.isArray(roots)) for (const root of roots as unknown[]) push('root', root);
  else push('roots', roots);
  for (const [key, value] of entries(field('env'))) push('env', `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`);
  push('url', field('url'));
  push('httpUrl', field('httpUrl'));
  push('type', field('type'));
  if (kind === 'lsp') {
    for (const key of ['transport', 'socket', 'workspaceFolder', 'extensionToLanguage', 'initializationOptions', 'settings']) push(key, field(key));
  }
  for (const [key, value] of entries(field('headers'))) {
    push('header', `${key}: ${typeof value === 'string' ? value : JSON.stringify(value)}`);
  }
  // A command run on this machine at every connect (decision 240): as much a process as `command`.
  push('headersHelper', field('headersHelper'));
  // Where a token comes from and goes: endpoints, client, grant, scopes.
  for (const [key, value] of entries(field('oauth'))) push('oauth', `${key}: ${typeof value === 'string' ? value : JSON.stringify(value)}`);
  push('trust', field('trust'));
  push('timeout', field('timeout'));
  push('disabled', field('disabled'));
  if (readsEnv.length > 0) lines.push({ label: 'reads', value: `from your environment: ${readsEnv.join(', ')}` });
  return { config, readsEnv, target, lines };
}

/** `command args…` or the URL of an entry already masked. */
function targetOf(config: unknown): string {
  if (typeof config !== 'object' || config === null) return '(invalid entry)';
  const c = config as Record<string, unknown>;
  if (typeof c.httpUrl === 'string') return c.httpUrl;
  if (typeof c.url === 'string') return c.url;
  if (typeof c.command === 'string') {
    const args = Array.isArray(c.args) ? c.args.filter((a): a is string => typeof a === 'string') : [];
    return [c.command, ...args].join(' ');
  }
  if (c.socket !== undefined) return `socket ${JSON.stringify(c.socket)}`;
  return '(no command or url)';
}

function entries(value: unknown): [string, unknown][] {
  if (value === null || typeof value !== 'object') return [];
  if (Array.isArray(value)) return [['(list)', value]];
  return Object.entries(value as Record<string, unknown>);
}

/** A command word as a shell would need it written, so `a b` and `a` `b` never look alike. */
function shellWord(word: unknown): string {
  if (typeof word !== 'string') return JSON.stringify(word);
  return /^[A-Za-z0-9_@%+=:,./${}-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
