import { serverNameProblem } from '../model/serverKeys.js';
import type { TransportKind } from '../model/types.js';
import { UsageError } from './usageError.js';

/** The files `mcp add` and `mcp remove` edit (docs/contract.md, "Settings sources"): user settings, `.mcp.json`, workspace settings. */
export type EditableScope = 'user' | 'project' | 'workspace';

export const EDITABLE_SCOPES: readonly EditableScope[] = ['user', 'project', 'workspace'];

/** What `mcp add` was told, before it becomes an entry. */
export interface AddServerFlags {
  name: string;
  /** `--transport`; absent: `http` for a lone http(s) URL, else `stdio` (as Qwen Code decides). */
  transport?: string;
  /** The command and its arguments, or the URL. */
  words: readonly string[];
  env: readonly string[];
  header: readonly string[];
  includeTools: readonly string[];
  excludeTools: readonly string[];
  timeout?: string;
  description?: string;
}

/**
 * The `mcpServers` entry `mcp add` writes, in the shape the peers write and read:
 * - stdio: `{command, args, env}` (as `gemini mcp add` and `qwen mcp add` write it);
 * - sse: `{type: "sse", url}` (Gemini CLI's shape; Claude Code's too; Qwen Code reads `url` as SSE);
 * - http: `{httpUrl}` in settings files — Qwen Code and every Gemini CLI read it, while Qwen Code
 *   would read `{url, type: "http"}` as SSE — and `{type: "http", url}` in `.mcp.json`, which is
 *   Claude Code's file and Claude Code knows no `httpUrl`.
 * Then `headers`, `timeout`, `description`, `includeTools`, `excludeTools` when given. Throws
 * {@link UsageError} for a name the session would not serve and for flags that do not fit the transport.
 */
export function serverEntryFromFlags(flags: AddServerFlags, scope: EditableScope): { transport: TransportKind; entry: Record<string, unknown> } {
  // Before anything is written: an entry the session would drop or could not name is refused (decision 193).
  const badName = serverNameProblem(flags.name);
  if (badName !== undefined) throw new UsageError(`mcp add: ${badName}`);
  const transport = transportOf(flags);
  const [first, ...rest] = flags.words;
  if (first === undefined) {
    throw new UsageError(`mcp add ${flags.name} needs a command (-- COMMAND ARGS…) or a URL (--transport http|sse URL)`);
  }
  const entry: Record<string, unknown> = {};
  if (transport === 'stdio') {
    if (flags.header.length > 0) throw new UsageError('--header is for http and sse servers; a stdio server takes --env');
    entry.command = first;
    if (rest.length > 0) entry.args = [...rest];
    if (flags.env.length > 0) entry.env = Object.fromEntries(flags.env.map(envPair));
  } else {
    if (flags.env.length > 0) throw new UsageError(`--env is for stdio servers; an ${transport} server takes --header`);
    if (rest.length > 0) throw new UsageError(`--transport ${transport} takes one URL, got "${flags.words.join(' ')}"`);
    if (!/^(https?:\/\/|\$)/i.test(first)) throw new UsageError(`--transport ${transport} expects an http:// or https:// URL, got "${first}"`);
    if (transport === 'http' && scope !== 'project') entry.httpUrl = first;
    else Object.assign(entry, { type: transport, url: first });
    if (flags.header.length > 0) entry.headers = Object.fromEntries(flags.header.map(headerPair));
  }
  if (flags.timeout !== undefined) {
    if (!/^\d+$/.test(flags.timeout) || Number(flags.timeout) === 0) {
      throw new UsageError(`--timeout expects a whole number of milliseconds, got "${flags.timeout}"`);
    }
    entry.timeout = Number(flags.timeout);
  }
  if (flags.description !== undefined) entry.description = flags.description;
  const include = toolList('--include-tools', flags.includeTools);
  const exclude = toolList('--exclude-tools', flags.excludeTools);
  if (include) entry.includeTools = include;
  if (exclude) entry.excludeTools = exclude;
  return { transport, entry };
}

function transportOf(flags: AddServerFlags): TransportKind {
  const given = flags.transport;
  if (given === undefined) return flags.words.length === 1 && /^https?:\/\//i.test(flags.words[0]!) ? 'http' : 'stdio';
  if (given === 'stdio' || given === 'http' || given === 'sse') return given;
  throw new UsageError(`--transport expects stdio, http or sse, got "${given}"`);
}

/** `K=V`, split at the first `=`: the value may hold more. */
function envPair(pair: string): [string, string] {
  const at = pair.indexOf('=');
  if (at <= 0) throw new UsageError(`--env expects KEY=value, got "${pair}"`);
  return [pair.slice(0, at), pair.slice(at + 1)];
}

/** `Name: value`, split at the first `:`, both trimmed. */
function headerPair(header: string): [string, string] {
  const at = header.indexOf(':');
  const name = header.slice(0, Math.max(at, 0)).trim();
  const value = header.slice(at + 1).trim();
  if (at < 0 || name === '' || value === '') throw new UsageError(`--header expects "Name: value", got "${header}"`);
  return [name, value];
}

/** Comma lists, also repeated (`--include-tools a,b --include-tools c`). */
function toolList(flag: string, values: readonly string[]): string[] | undefined {
  if (values.length === 0) return undefined;
  const names = commaList(values);
  if (names.length === 0) throw new UsageError(`${flag} needs at least one tool name`);
  return names;
}

/** Every comma-separated name of every occurrence of a repeatable flag, trimmed, in order, once each. */
export function commaList(values: readonly string[]): string[] {
  return [...new Set(values.flatMap((v) => v.split(',')).map((s) => s.trim()).filter((s) => s.length > 0))];
}
