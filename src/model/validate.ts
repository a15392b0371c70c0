import { resolve } from 'node:path';
import {
  DEFAULT_TIMEOUT_MS,
  MAX_TIMEOUT_MS,
  type ResolvedServerConfig,
  type ServerConfig,
  type TransportKind,
  type ViewFields,
} from './types.js';

/** The message of a config that names no way to reach the server (SPEC §3). */
export const NO_TRANSPORT_ERROR = 'no transport: set command, url or httpUrl';

type FieldCheck = (value: unknown) => boolean;

const isString: FieldCheck = (value) => typeof value === 'string';
const isNonEmptyString: FieldCheck = (value) => typeof value === 'string' && value !== '';
const isBoolean: FieldCheck = (value) => typeof value === 'boolean';
const isStringArray: FieldCheck = (value) => Array.isArray(value) && value.every((item) => typeof item === 'string');
const isStringRecord: FieldCheck = (value) =>
  isPlainObject(value) && Object.values(value).every((item) => typeof item === 'string');
const isPositiveNumber: FieldCheck = (value) => typeof value === 'number' && Number.isFinite(value) && value > 0;

/**
 * Every known field, its check and the words of its error. The transport fields must be
 * non-empty: an empty `command` or `url` can never connect, and would otherwise silently
 * shadow a lower-priority transport field (see {@link transportKind}).
 */
const FIELD_CHECKS: readonly (readonly [field: keyof ServerConfig & string, check: FieldCheck, expected: string])[] = [
  ['command', isNonEmptyString, 'a non-empty string'],
  ['args', isStringArray, 'an array of strings'],
  ['env', isStringRecord, 'an object of strings'],
  ['cwd', isString, 'a string'],
  ['url', isNonEmptyString, 'a non-empty string'],
  ['httpUrl', isNonEmptyString, 'a non-empty string'],
  ['type', isString, 'a string'],
  ['headers', isStringRecord, 'an object of strings'],
  ['timeout', isPositiveNumber, 'a positive number (milliseconds)'],
  ['trust', isBoolean, 'a boolean'],
  ['description', isString, 'a string'],
  ['includeTools', isStringArray, 'an array of strings'],
  ['excludeTools', isStringArray, 'an array of strings'],
  ['disabled', isBoolean, 'a boolean'],
];

/**
 * An object written as `{...}` in JSON: not null, not an array. Prototypes are not inspected, so
 * `JSON.parse` output and null-prototype maps both qualify.
 */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * Checks one `mcpServers` entry (SPEC §3). Known fields must have their documented types (an
 * absent or `undefined` field is fine); unknown fields are kept and ignored. On failure the error
 * lists every bad field, e.g. `args must be an array of strings; timeout must be a positive
 * number (milliseconds)`. The transport is not required here — see {@link resolveServerConfig}.
 * The returned config is the input object itself, unchanged.
 */
export function validateServerConfig(raw: unknown): { ok: true; config: ServerConfig } | { ok: false; error: string } {
  if (!isPlainObject(raw)) return { ok: false, error: 'server config must be an object' };
  const problems: string[] = [];
  for (const [field, check, expected] of FIELD_CHECKS) {
    // Own fields only: a config must not pick up `toString` & co. from its prototype.
    const value = Object.hasOwn(raw, field) ? raw[field] : undefined;
    if (value !== undefined && !check(value)) problems.push(`${field} must be ${expected}`);
  }
  return problems.length === 0 ? { ok: true, config: raw } : { ok: false, error: problems.join('; ') };
}

/**
 * The transport a validated config asks for (SPEC §3), first match wins: `httpUrl` → Streamable
 * HTTP; `url` → SSE, or Streamable HTTP when `type` is `http` / `streamable-http` (Claude's
 * `.mcp.json`); `command` → stdio; none → `undefined`.
 */
export function transportKind(config: ServerConfig): TransportKind | undefined {
  if (config.httpUrl !== undefined) return 'http';
  if (config.url !== undefined) return config.type === 'http' || config.type === 'streamable-http' ? 'http' : 'sse';
  if (config.command !== undefined) return 'stdio';
  return undefined;
}

/** `$NAME` or `${NAME}`, with NAME a shell-style identifier (also read by model/secrets.ts). */
export const VARIABLE = /\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))/g;

/**
 * Expands `$VAR` and `${VAR}` from `env`. An **unset variable expands to the empty string**, as in
 * a POSIX shell, so a config never carries a literal `$TOKEN` to a server by accident. A `$` that
 * does not start a name (`$5`, `$`, an unclosed `${`) stays as written; there is no escape syntax
 * and no `${VAR:-default}`. Only own members of `env` count, so `$__proto__` is unset.
 */
export function expandVars(s: string, env: Readonly<Record<string, string | undefined>>): string {
  return s.replace(VARIABLE, (_match, braced: string | undefined, bare: string | undefined) => {
    const name = braced ?? bare ?? '';
    return Object.hasOwn(env, name) ? (env[name] ?? '') : '';
  });
}

/** Expands the values of a string map (keys stay as written). */
function expandValues(
  record: Readonly<Record<string, string>> | undefined,
  env: Readonly<Record<string, string | undefined>>,
): Record<string, string> {
  // Object.fromEntries defines keys as data, so a `__proto__` header stays a header.
  return Object.fromEntries(Object.entries(record ?? {}).map(([key, value]) => [key, expandVars(value, env)]));
}

/** The view fields of a validated config, present ones only. */
function viewFieldsOf(config: ServerConfig): ViewFields {
  const view: ViewFields = {};
  if (config.includeTools !== undefined) view.includeTools = [...config.includeTools];
  if (config.excludeTools !== undefined) view.excludeTools = [...config.excludeTools];
  if (config.trust !== undefined) view.trust = config.trust;
  if (config.description !== undefined) view.description = config.description;
  return view;
}

/**
 * Validation + transport choice + `$VAR` expansion (command, args, env values, cwd, url/httpUrl,
 * header values) + the default timeout: everything a connector needs, and the view fields.
 *
 * A stdio server's working directory is its `cwd` resolved against `workspace`, or `workspace`
 * itself; it is part of the fingerprint, so sessions of a pool with different workspaces never
 * share a process. (Without `workspace`, `cwd` stays as written: the pure unit tests' form.)
 *
 * Only the fields of the chosen transport are carried over — a stdio server gets no url or
 * headers, a remote one no command, args, env or cwd — so editing a field that cannot matter
 * does not change the fingerprint and does not reconnect.
 */
export function resolveServerConfig(
  raw: unknown,
  env: Readonly<Record<string, string | undefined>>,
  workspace?: string,
): { ok: true; resolved: ResolvedServerConfig; view: ViewFields } | { ok: false; error: string } {
  const validated = validateServerConfig(raw);
  if (!validated.ok) return validated;
  const { config } = validated;
  const transport = transportKind(config);
  if (transport === undefined) return { ok: false, error: NO_TRANSPORT_ERROR };
  const timeout = Math.min(config.timeout ?? DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS);
  const view = viewFieldsOf(config);
  if (transport === 'stdio') {
    const resolved: ResolvedServerConfig = {
      transport,
      command: expandVars(config.command ?? '', env),
      args: (config.args ?? []).map((arg) => expandVars(arg, env)),
      env: expandValues(config.env, env),
      headers: {},
      timeout,
    };
    // Relative to the workspace, never to mcp-live's own directory (issue 11): `node server.js`
    // in `.mcp.json` runs the workspace's server.js from wherever mcp-live was started.
    const cwd = config.cwd === undefined ? undefined : expandVars(config.cwd, env);
    if (workspace !== undefined) resolved.cwd = resolve(workspace, cwd ?? '.');
    else if (cwd !== undefined) resolved.cwd = cwd;
    return { ok: true, resolved, view };
  }
  const url = transport === 'http' && config.httpUrl !== undefined ? config.httpUrl : (config.url ?? '');
  const resolved: ResolvedServerConfig = {
    transport,
    url: expandVars(url, env),
    args: [],
    env: {},
    headers: expandValues(config.headers, env),
    timeout,
  };
  return { ok: true, resolved, view };
}
