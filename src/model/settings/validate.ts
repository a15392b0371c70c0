import { basename, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  fieldProblems,
  isBoolean,
  isNonEmptyString,
  isPlainObject,
  isPositiveNumber,
  isPositiveWholeNumber,
  isString,
  isStringArray,
  isStringRecord,
  type FieldRule,
} from '../fieldChecks.js';
import { oauthProblems, resolveOAuthSettings } from '../oauth/oauthSettings.js';
import {
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_HEALTH_CHECK,
  DEFAULT_TIMEOUT_MS,
  MAX_MESSAGE_BYTES_CAP,
  MAX_TIMEOUT_MS,
  MIN_HEALTH_CHECK_INTERVAL_MS,
  type HealthCheck,
  type Lifecycle,
  type Root,
  type ResolvedServerConfig,
  type ServerConfig,
  type TransportKind,
  type ViewFields,
} from '../types.js';

/** The longest `idleTimeout`: a day. */
export const MAX_IDLE_TIMEOUT_MS = 86_400_000;

/** The message of a config that names no way to reach the server (docs/contract.md, "Server entries"). */
export const NO_TRANSPORT_ERROR = 'no transport: set command, url or httpUrl';


/**
 * Every known field, its check and the words of its error. The transport fields must be
 * non-empty: an empty `command` or `url` can never connect, and would otherwise silently
 * shadow a lower-priority transport field (see {@link transportKind}).
 */
const FIELD_CHECKS: readonly (FieldRule & readonly [keyof ServerConfig & string, ...unknown[]])[] = [
  ['command', isNonEmptyString, 'a non-empty string'],
  ['args', isStringArray, 'an array of strings'],
  ['env', isStringRecord, 'an object of strings'],
  ['cwd', isString, 'a string'],
  ['url', isNonEmptyString, 'a non-empty string'],
  ['httpUrl', isNonEmptyString, 'a non-empty string'],
  ['type', isString, 'a string'],
  ['headers', isStringRecord, 'an object of strings'],
  ['timeout', isPositiveNumber, 'a positive number (milliseconds)'],
  ['connectTimeout', isPositiveNumber, 'a positive number (milliseconds)'],
  ['trust', isBoolean, 'a boolean'],
  ['description', isString, 'a string'],
  ['includeTools', isStringArray, 'an array of strings'],
  ['excludeTools', isStringArray, 'an array of strings'],
  ['disabled', isBoolean, 'a boolean'],
  ['restart', (value) => value === 'stop-first' || value === 'overlap', '"stop-first" or "overlap"'],
  ['maxMessageBytes', isPositiveWholeNumber, 'a positive whole number (bytes)'],
  ['lazy', isBoolean, 'a boolean'],
  ['idleTimeout', isPositiveNumber, 'a positive number (milliseconds)'],
  ['headersHelper', isNonEmptyString, 'a non-empty string (a shell command)'],
  ['healthCheck', (value) => typeof value === 'boolean' || isPlainObject(value), 'true, false or an object'],
  ['roots', (value) => value === false || (Array.isArray(value) && value.every(isNonEmptyString)), 'false or an array of paths (non-empty strings)'],
];

/** The fields of a `healthCheck` block (decision 241). */
const HEALTH_CHECK_CHECKS: readonly FieldRule[] = [
  [
    'intervalMs',
    (value) => isPositiveNumber(value) && (value as number) >= MIN_HEALTH_CHECK_INTERVAL_MS,
    `a number of milliseconds, at least ${MIN_HEALTH_CHECK_INTERVAL_MS}`,
  ],
  ['timeoutMs', isPositiveNumber, 'a positive number (milliseconds)'],
];

/**
 * Checks one `mcpServers` entry (docs/contract.md, "Server entries"). Known fields must have their
 * documented types (an absent or `undefined` field is fine); unknown fields are kept and ignored.
 * On failure the error lists every bad field, e.g.
 * `args must be an array of strings; timeout must be a positive number (milliseconds)`. The
 * transport is not required here — see {@link resolveServerConfig}. The returned config is the
 * input object itself, unchanged.
 */
export function validateServerConfig(raw: unknown): { ok: true; config: ServerConfig } | { ok: false; error: string } {
  if (!isPlainObject(raw)) return { ok: false, error: 'server config must be an object' };
  const problems = [...fieldProblems(raw, FIELD_CHECKS), ...unsupportedProblems(raw)];
  if (Object.hasOwn(raw, 'oauth') && raw.oauth !== undefined) problems.push(...oauthProblems(raw.oauth));
  if (Object.hasOwn(raw, 'healthCheck') && isPlainObject(raw.healthCheck)) problems.push(...fieldProblems(raw.healthCheck, HEALTH_CHECK_CHECKS, 'healthCheck.'));
  return problems.length === 0 ? { ok: true, config: raw } : { ok: false, error: problems.join('; ') };
}

/** The fields whose strings are expanded ({@link resolveServerConfig}): where a variable is read. */
const EXPANDED_FIELDS = ['command', 'args', 'env', 'cwd', 'url', 'httpUrl', 'headers', 'headersHelper', 'roots', 'oauth'] as const;

/** A VS Code prompted input, `${input:ID}`. */
const PROMPTED_INPUT = /\$\{input:[^}]*\}/;

/**
 * What an entry asks for that mcp-live cannot honour, in words (decision 327): running the server
 * without it would give it other values than the ones written, silently. VS Code's `envFile` (an
 * env file read at start) and its prompted inputs (`${input:ID}`, asked for in the editor) — the
 * value must come from the environment instead. One phrase per field.
 */
function unsupportedProblems(raw: Record<string, unknown>): string[] {
  const problems: string[] = [];
  if (Object.hasOwn(raw, 'envFile') && raw.envFile !== undefined) {
    problems.push('envFile is not supported: put the variables in "env" (${NAME} reads one from the environment)');
  }
  for (const field of EXPANDED_FIELDS) {
    const input = Object.hasOwn(raw, field) ? firstPromptedInput(raw[field]) : undefined;
    if (input !== undefined) {
      problems.push(`${field} uses ${input}, a value VS Code prompts for, which is not supported: read it from the environment instead, \${NAME} (in VS Code's "servers" also \${env:NAME})`);
    }
  }
  return problems;
}

/** The first `${input:…}` in a field's strings (a string, a list of them or a map of them, one level deep). */
function firstPromptedInput(value: unknown): string | undefined {
  const strings = typeof value === 'string' ? [value] : Array.isArray(value) ? value : isPlainObject(value) ? Object.values(value) : [];
  for (const item of strings) {
    const found = typeof item === 'string' ? PROMPTED_INPUT.exec(item) : null;
    if (found !== null) return found[0];
  }
  return undefined;
}

/**
 * The transport a validated config asks for (docs/contract.md, "Server entries"), first match wins:
 * `httpUrl` → Streamable HTTP; `url` → SSE, or Streamable HTTP when `type` is `http` /
 * `streamable-http` (Claude's `.mcp.json`); `command` → stdio; none → `undefined`.
 */
export function transportKind(config: ServerConfig): TransportKind | undefined {
  if (config.httpUrl !== undefined) return 'http';
  if (config.url !== undefined) return config.type === 'http' || config.type === 'streamable-http' ? 'http' : 'sse';
  if (config.command !== undefined) return 'stdio';
  return undefined;
}

/**
 * A variable reference: `$NAME` (group 1), or `${NAME}` / `${NAME:-default}` (name in group 2,
 * default in group 3), NAME a shell-style identifier — or `${/}`, the path separator. Also read by
 * model/settings/secrets.ts, which takes the name from group 1 or 2.
 */
export const VARIABLE = /\$(?:([A-Za-z_][A-Za-z0-9_]*)|\{([A-Za-z_][A-Za-z0-9_]*|\/)(?::-([^}]*))?\})/g;

/** The process environment; `undefined` members are unset. */
type Environment = Readonly<Record<string, string | undefined>>;

/**
 * The variables that are not read from the environment (the peers' extension variables, Gemini CLI
 * and Qwen Code): `${/}` and `${pathSeparator}` everywhere, `${workspacePath}` where the workspace
 * is known, `${extensionPath}` in an extension's entries. Braced form only, as in the peers: a bare
 * `$workspacePath` is an environment variable.
 */
export interface BuiltinVariables {
  workspacePath?: string;
  extensionPath?: string;
}

/** Whether `${name}` is one of the {@link BuiltinVariables} names (or `${/}`), whatever the entry. */
export function isBuiltinVariable(name: string): boolean {
  return name === '/' || name === 'pathSeparator' || name === 'workspacePath' || name === 'extensionPath';
}

/** The value of a braced built-in, or undefined when it is none (or not known for this entry). */
function builtinValue(name: string, builtins: BuiltinVariables): string | undefined {
  switch (name) {
    case '/':
    case 'pathSeparator':
      return sep;
    case 'workspacePath':
      return builtins.workspacePath;
    case 'extensionPath':
      return builtins.extensionPath;
    default:
      return undefined;
  }
}

/**
 * Expands `$VAR`, `${VAR}` and `${VAR:-default}` from `env`, and the {@link BuiltinVariables}.
 *
 * - An **unset variable expands to the empty string**, as in a POSIX shell, so a config never
 *   carries a literal `$TOKEN` to a server by accident; its name is added to `unset` (for the
 *   "GITHUB_PAT is not set" warnings). A variable set to `""` is set.
 * - `${VAR:-default}` (Claude Code's `.mcp.json`, POSIX `:-`): the default when VAR is unset or
 *   empty; the default is taken as written (no expansion inside it) and ends at the first `}`.
 * - A braced built-in wins over an environment variable of the same name; a built-in that is not
 *   known here (`${extensionPath}` outside an extension) is looked up in the environment.
 * - Whatever is not a reference stays as written: `$5`, `$`, an unclosed `${`, `${VAR-default}`,
 *   `${a.b}`. There is no escape syntax and no recursion. Only own members of `env` count, so
 *   `$__proto__` is unset.
 */
export function expandVars(s: string, env: Environment, builtins: BuiltinVariables = {}, unset?: Set<string>): string {
  return s.replace(VARIABLE, (_match, bare: string | undefined, braced: string | undefined, fallback: string | undefined) => {
    const name = bare ?? braced ?? '';
    const value = (braced === undefined ? undefined : builtinValue(name, builtins)) ?? (Object.hasOwn(env, name) ? env[name] : undefined);
    if (fallback !== undefined) return value === undefined || value === '' ? fallback : value;
    if (value === undefined) unset?.add(name);
    return value ?? '';
  });
}

/**
 * Expands only the braced {@link BuiltinVariables} (and `${/}`); every other reference stays as
 * written. For a `headersHelper` (decision 240): a shell runs it and reads the environment
 * itself, so `$TOKEN` must reach the shell as `$TOKEN` — but `${extensionPath}` is mcp-live's.
 */
export function expandBuiltins(s: string, builtins: BuiltinVariables): string {
  return s.replace(VARIABLE, (match: string, _bare: string | undefined, braced: string | undefined, fallback: string | undefined) => {
    if (braced === undefined || fallback !== undefined) return match;
    return builtinValue(braced, builtins) ?? match;
  });
}

/** The warning for a variable an entry reads that is not set: names only, never values. */
export function unsetVariableWarning(name: string): string {
  return `${name} is not set`;
}

/** Expands the values of a string map (keys stay as written). */
export function expandValues(
  record: Readonly<Record<string, string>> | undefined,
  expand: (text: string) => string,
): Record<string, string> {
  // Object.fromEntries defines keys as data, so a `__proto__` header stays a header.
  return Object.fromEntries(Object.entries(record ?? {}).map(([key, value]) => [key, expand(value)]));
}

/** The view fields of a validated config, present ones only. */
function viewFieldsOf(config: ServerConfig, lazyDefault: boolean | undefined): ViewFields {
  const view: ViewFields = {};
  if (config.includeTools !== undefined) view.includeTools = [...config.includeTools];
  if (config.excludeTools !== undefined) view.excludeTools = [...config.excludeTools];
  if (config.trust !== undefined) view.trust = config.trust;
  if (config.description !== undefined) view.description = config.description;
  if (config.restart !== undefined) view.restart = config.restart;
  const lifecycle = lifecycleOf(config, lazyDefault);
  if (lifecycle !== undefined) view.lifecycle = lifecycle;
  return view;
}

/**
 * When the entry's process runs (decision 196): its own `lazy`, else the file's `mcp.lazy`;
 * `idleTimeout` capped at a day (Node's timers fire at once past 2^31-1 ms). Undefined for an
 * always-running server.
 */
export function lifecycleOf(config: Pick<ServerConfig, 'lazy' | 'idleTimeout'>, lazyDefault?: boolean): Lifecycle | undefined {
  const lazy = config.lazy ?? lazyDefault ?? false;
  if (!lazy && config.idleTimeout === undefined) return undefined;
  return { ...(lazy ? { lazy } : {}), ...(config.idleTimeout === undefined ? {} : { idleTimeoutMs: Math.min(Math.ceil(config.idleTimeout), MAX_IDLE_TIMEOUT_MS) }) };
}

/**
 * `maxMessageBytes` as resolved (decision 182): capped at {@link MAX_MESSAGE_BYTES_CAP} like the
 * deadlines, absent when not written so an entry without it keeps its fingerprint.
 */
export function messageCap(config: Pick<ServerConfig, 'maxMessageBytes'>): { maxMessageBytes?: number } {
  return config.maxMessageBytes === undefined ? {} : { maxMessageBytes: Math.min(config.maxMessageBytes, MAX_MESSAGE_BYTES_CAP) };
}

/**
 * `healthCheck` as resolved (decision 241): `true` is the default ping, an object fills in the
 * default for what it leaves out (the timeout capped at {@link MAX_TIMEOUT_MS}, the interval at
 * a day), `false` stays `false` (it turns a remote server's default off). Absent when not written,
 * so an entry without it keeps its fingerprint.
 */
export function healthCheckField(config: Pick<ServerConfig, 'healthCheck'>): { healthCheck?: false | HealthCheck } {
  const written = config.healthCheck;
  if (written === undefined) return {};
  if (written === false) return { healthCheck: false };
  const block = written === true ? {} : written;
  return {
    healthCheck: {
      intervalMs: Math.min(Math.ceil(block.intervalMs ?? DEFAULT_HEALTH_CHECK.intervalMs), MAX_IDLE_TIMEOUT_MS),
      timeoutMs: capped(Math.ceil(block.timeoutMs ?? DEFAULT_HEALTH_CHECK.timeoutMs)),
    },
  };
}

/**
 * The health check a connection runs (decision 241): the entry's, else a ping a minute for a
 * remote server ({@link DEFAULT_HEALTH_CHECK}) and none for a stdio one — a stdio server that dies
 * closes its pipes, which says so at once; a remote one can vanish without a word. Undefined: none.
 */
export function healthCheckOf(resolved: Pick<ResolvedServerConfig, 'transport' | 'healthCheck' | 'lsp'>): HealthCheck | undefined {
  if (resolved.lsp !== undefined || resolved.healthCheck === false) return undefined;
  return resolved.healthCheck ?? (resolved.transport === 'stdio' ? undefined : DEFAULT_HEALTH_CHECK);
}

/**
 * `roots` as resolved (decision 243): `false` stays `false`; each path is `$VAR`-expanded,
 * resolved against the workspace (like `cwd`) and given as a `file://` URI named by its last
 * segment; a value that is a `file://` URI already is taken as it is. Absent when not written.
 */
export function rootsField(
  config: Pick<ServerConfig, 'roots'>,
  expand: (text: string) => string,
  workspace: string | undefined,
): { roots?: false | Root[] } {
  if (config.roots === undefined) return {};
  if (config.roots === false) return { roots: false };
  return {
    roots: config.roots.map((written) => {
      const path = expand(written);
      if (/^file:\/\//i.test(path)) return { uri: path };
      const absolute = workspace === undefined ? resolve(path) : resolve(workspace, path);
      return { uri: pathToFileURL(absolute).href, name: basename(absolute) || absolute };
    }),
  };
}

/** A timeout field as resolved: capped at {@link MAX_TIMEOUT_MS}. */
function capped(ms: number): number {
  return Math.min(ms, MAX_TIMEOUT_MS);
}

/**
 * The two deadlines (decision 24): `timeout` for each request (default 600 000 ms), `connectTimeout`
 * for the connect (default 30 000 ms). Without `connectTimeout`, a shorter `timeout` also bounds
 * the connect — `initialize` is a request too, and a config written for the peers (whose one
 * `timeout` covers both) keeps its deadline.
 */
function deadlines(config: ServerConfig): { timeout: number; connectTimeout: number } {
  const timeout = capped(config.timeout ?? DEFAULT_TIMEOUT_MS);
  return { timeout, connectTimeout: connectDeadline(config.connectTimeout, timeout) };
}

/** The connect deadline for a `connectTimeout` (or none) and a request `timeout` (see {@link deadlines}). */
export function connectDeadline(connectTimeout: number | undefined, timeout: number): number {
  return capped(connectTimeout ?? Math.min(timeout, DEFAULT_CONNECT_TIMEOUT_MS));
}

/**
 * {@link expandVars} for one entry: its environment, `${workspacePath}` = `workspace` and
 * `${extensionPath}` = its extension's directory, collecting the unset variables it reads.
 */
export function entryExpander(
  env: Environment,
  workspace?: string,
  extensionPath?: string,
): { expand: (text: string) => string; unset: Set<string> } {
  const unset = new Set<string>();
  const builtins: BuiltinVariables = {};
  if (workspace !== undefined) builtins.workspacePath = workspace;
  if (extensionPath !== undefined) builtins.extensionPath = extensionPath;
  return { expand: (text) => expandVars(text, env, builtins, unset), unset };
}

/** What {@link resolveServerConfig} returns for a valid entry. */
export interface Resolution {
  ok: true;
  resolved: ResolvedServerConfig;
  view: ViewFields;
  /** The environment variables the used fields read that are not set (sorted): each expanded to "". */
  unsetVariables: string[];
}

/**
 * Validation + transport choice + variable expansion ({@link expandVars}: command, args, env
 * values, cwd, url/httpUrl, header values) + the default deadlines: everything a connector
 * needs, the view fields, and the variables that were not set.
 *
 * A stdio server's working directory is its `cwd` resolved against `workspace`, or `workspace`
 * itself; it is part of the fingerprint, so sessions of a pool with different workspaces never
 * share a process. (Without `workspace`, `cwd` stays as written: the pure unit tests' form.)
 * `workspace` is also `${workspacePath}`; `extensionPath`, the directory of the extension the
 * entry comes from, is `${extensionPath}`.
 *
 * Only the fields of the chosen transport are carried over — a stdio server gets no url,
 * headers or headersHelper, a remote one no command, args, env or cwd — so editing a field that cannot matter
 * does not change the fingerprint and does not reconnect (nor warns about its variables).
 */
export function resolveServerConfig(
  raw: unknown,
  env: Environment,
  workspace?: string,
  extensionPath?: string,
  lazyDefault?: boolean,
): Resolution | { ok: false; error: string } {
  const validated = validateServerConfig(raw);
  if (!validated.ok) return validated;
  const { config } = validated;
  const transport = transportKind(config);
  if (transport === undefined) return { ok: false, error: NO_TRANSPORT_ERROR };
  const view = viewFieldsOf(config, lazyDefault);
  const lifecycle = view.lifecycle === undefined ? {} : { lifecycle: view.lifecycle };
  const { expand, unset } = entryExpander(env, workspace, extensionPath);
  const done = (resolved: ResolvedServerConfig): Resolution => ({ ok: true, resolved, view, unsetVariables: [...unset].sort() });
  // Both transports: a stdio server can hang as well as a remote one, and either may ask for roots.
  const shared = { ...healthCheckField(config), ...rootsField(config, expand, workspace) };
  if (transport === 'stdio') {
    const resolved: ResolvedServerConfig = {
      transport,
      command: expand(config.command ?? ''),
      args: (config.args ?? []).map(expand),
      env: expandValues(config.env, expand),
      headers: {},
      ...deadlines(config),
      ...messageCap(config),
      ...lifecycle,
      ...shared,
    };
    // Relative to the workspace, never to mcp-live's own directory (decision 63): `node server.js`
    // in `.mcp.json` runs the workspace's server.js from wherever mcp-live was started.
    const cwd = config.cwd === undefined ? undefined : expand(config.cwd);
    if (workspace !== undefined) resolved.cwd = resolve(workspace, cwd ?? '.');
    else if (cwd !== undefined) resolved.cwd = cwd;
    return done(resolved);
  }
  const url = transport === 'http' && config.httpUrl !== undefined ? config.httpUrl : (config.url ?? '');
  return done({
    transport,
    url: expand(url),
    args: [],
    env: {},
    headers: expandValues(config.headers, expand),
    ...deadlines(config),
    ...messageCap(config),
    ...lifecycle,
    ...shared,
    ...(config.oauth === undefined ? {} : { oauth: resolveOAuthSettings(config.oauth, expand) }),
    ...(config.headersHelper === undefined ? {} : { headersHelper: helperOf(config.headersHelper, workspace, extensionPath) }),
  });
}

/**
 * A `headersHelper` as resolved (decision 240): built-ins expanded, run in the workspace — which
 * `resolveAssembled` keeps only for a gated entry, placing any other's in the home directory
 * (decision 299).
 */
function helperOf(command: string, workspace: string | undefined, extensionPath: string | undefined): { command: string; cwd?: string } {
  const builtins: BuiltinVariables = {};
  if (workspace !== undefined) builtins.workspacePath = workspace;
  if (extensionPath !== undefined) builtins.extensionPath = extensionPath;
  return { command: expandBuiltins(command, builtins), ...(workspace === undefined ? {} : { cwd: workspace }) };
}
