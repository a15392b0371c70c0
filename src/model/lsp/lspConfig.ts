import { isAbsolute, resolve } from 'node:path';
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
  type FieldCheck,
  type FieldRule,
} from '../fieldChecks.js';
import { entryExpander, expandValues, messageCap } from '../settings/validate.js';
import { MAX_TIMEOUT_MS, type LspSocket, type LspView, type ResolvedLsp, type ResolvedServerConfig, type ViewFields } from '../types.js';

/**
 * One entry of a `.lsp.json` file or an `lspServers` map as written (Claude Code plugins' format):
 * the key is the server's name. Unknown fields are kept and ignored.
 */
export interface LspServerConfig {
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  transport?: 'stdio' | 'socket';
  /** With `transport: "socket"`: a TCP port (`1234` or `{ "port": 1234, "host": "127.0.0.1" }`) or `{ "path": "/tmp/x.sock" }`. */
  socket?: number | { port?: number; host?: string; path?: string };
  /** File extension (with its dot) → LSP language id; decides which files the server gets. */
  extensionToLanguage?: Record<string, string>;
  initializationOptions?: unknown;
  /** Sent with `workspace/didChangeConfiguration`, and answers `workspace/configuration`. */
  settings?: unknown;
  /** The root the server is started for (default: the workspace); relative to the workspace. */
  workspaceFolder?: string;
  /** ms to `initialize` (default 30 000). */
  startupTimeout?: number;
  /** ms the `shutdown` request may take before the process is ended (default 5 000). */
  shutdownTimeout?: number;
  restartOnCrash?: boolean;
  maxRestarts?: number;
  disabled?: boolean;
  /** The largest single message the server may send, bytes (default 16 MiB, at most 256 MiB), as for an MCP server. */
  maxMessageBytes?: number;
  [unknown: string]: unknown;
}

export const DEFAULT_LSP_STARTUP_TIMEOUT_MS = 30_000;
export const DEFAULT_LSP_SHUTDOWN_TIMEOUT_MS = 5_000;
export const DEFAULT_LSP_MAX_RESTARTS = 3;
/** How long one request to a language server may take (the entry has no field for it). */
export const LSP_REQUEST_TIMEOUT_MS = 30_000;

const isCount: FieldCheck = (value) => typeof value === 'number' && Number.isInteger(value) && value >= 0;
const isSocket: FieldCheck = (value) =>
  isPort(value) ||
  (isPlainObject(value) &&
    ((isPort(value.port) && (value.host === undefined || isNonEmptyString(value.host)) && value.path === undefined) ||
      (isNonEmptyString(value.path) && value.port === undefined && value.host === undefined)));
const isExtensionMap: FieldCheck = (value) =>
  isStringRecord(value) && Object.entries(value as Record<string, string>).every(([ext, id]) => /^\.[^./\\\s]+$/.test(ext) && id !== '');

function isPort(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 && value < 65536;
}

const FIELD_CHECKS: readonly FieldRule[] = [
  ['command', isNonEmptyString, 'a non-empty string'],
  ['args', isStringArray, 'an array of strings'],
  ['env', isStringRecord, 'an object of strings'],
  ['transport', (value) => value === 'stdio' || value === 'socket', '"stdio" or "socket"'],
  ['socket', isSocket, 'a port, { "port", "host" } or { "path" }'],
  ['extensionToLanguage', isExtensionMap, 'an object from extensions (".ts") to language ids'],
  ['workspaceFolder', isString, 'a string'],
  ['startupTimeout', isPositiveNumber, 'a positive number (milliseconds)'],
  ['shutdownTimeout', isPositiveNumber, 'a positive number (milliseconds)'],
  ['restartOnCrash', isBoolean, 'a boolean'],
  ['maxRestarts', isCount, 'a whole number ≥ 0'],
  ['disabled', isBoolean, 'a boolean'],
  ['maxMessageBytes', isPositiveWholeNumber, 'a positive whole number (bytes)'],
];

/** What {@link resolveLspConfig} returns for a valid entry (the shape of `resolveServerConfig`'s). */
export interface LspResolution {
  ok: true;
  resolved: ResolvedServerConfig & { lsp: ResolvedLsp };
  view: ViewFields;
  unsetVariables: string[];
}

/**
 * Validation + expansion of one language server entry: `command`, `args`, `env` values,
 * `workspaceFolder` and a socket path expand `$VAR`, `${workspacePath}`, `${extensionPath}` and
 * `${/}` like an MCP entry. `command` is required for stdio, `extensionToLanguage` always (a server
 * that gets no file is of no use); a socket server without `command` is one already running.
 * The process runs in the workspace folder (relative to the workspace).
 */
export function resolveLspConfig(
  raw: unknown,
  env: Readonly<Record<string, string | undefined>>,
  workspace?: string,
  extensionPath?: string,
): LspResolution | { ok: false; error: string } {
  if (!isPlainObject(raw)) return { ok: false, error: 'language server config must be an object' };
  const problems = fieldProblems(raw, FIELD_CHECKS);
  const config = raw as LspServerConfig;
  const transport = config.transport ?? 'stdio';
  if (transport === 'stdio' && config.command === undefined && problems.length === 0) problems.push('command is required');
  if (transport === 'socket' && config.socket === undefined && problems.length === 0) problems.push('socket is required with transport "socket"');
  if (config.extensionToLanguage === undefined && problems.length === 0) problems.push('extensionToLanguage is required');
  if (problems.length > 0) return { ok: false, error: problems.join('; ') };

  const { expand, unset } = entryExpander(env, workspace, extensionPath);
  const folderAsWritten = config.workspaceFolder === undefined ? undefined : expand(config.workspaceFolder);
  const workspaceFolder =
    workspace !== undefined ? resolve(workspace, folderAsWritten ?? '.') : folderAsWritten !== undefined && isAbsolute(folderAsWritten) ? folderAsWritten : resolve(folderAsWritten ?? '.');
  const view: LspView = {
    extensionToLanguage: { ...config.extensionToLanguage! },
    shutdownTimeout: Math.min(config.shutdownTimeout ?? DEFAULT_LSP_SHUTDOWN_TIMEOUT_MS, MAX_TIMEOUT_MS),
    restartOnCrash: config.restartOnCrash ?? true,
    maxRestarts: config.maxRestarts ?? DEFAULT_LSP_MAX_RESTARTS,
  };
  if (config.settings !== undefined) view.settings = config.settings;
  const lsp: ResolvedLsp = { transport, workspaceFolder, view };
  if (config.initializationOptions !== undefined) lsp.initializationOptions = config.initializationOptions;
  if (transport === 'socket') lsp.socket = socketOf(config.socket!, expand);
  const resolved: ResolvedServerConfig & { lsp: ResolvedLsp } = {
    transport: 'stdio',
    args: (config.args ?? []).map(expand),
    env: expandValues(config.env, expand),
    cwd: workspaceFolder,
    headers: {},
    timeout: LSP_REQUEST_TIMEOUT_MS,
    connectTimeout: Math.min(config.startupTimeout ?? DEFAULT_LSP_STARTUP_TIMEOUT_MS, MAX_TIMEOUT_MS),
    // As an MCP entry's (decision 186): capped, in the fingerprint, absent when not written.
    ...messageCap(config),
    lsp,
  };
  if (config.command !== undefined) resolved.command = expand(config.command);
  return { ok: true, resolved, view: { lsp: view }, unsetVariables: [...unset].sort() };
}

function socketOf(socket: NonNullable<LspServerConfig['socket']>, expand: (text: string) => string): LspSocket {
  if (typeof socket === 'number') return { port: socket, host: '127.0.0.1' };
  if (socket.path !== undefined) return { path: expand(socket.path) };
  return { port: socket.port!, host: socket.host ?? '127.0.0.1' };
}

/** The language ids a view routes to, sorted, once each. */
export function languagesOf(view: Pick<LspView, 'extensionToLanguage'>): string[] {
  return [...new Set(Object.values(view.extensionToLanguage))].sort();
}

/** The language id of `path` by its extension under `view`, or undefined when the server does not take it. */
export function languageOf(view: Pick<LspView, 'extensionToLanguage'>, path: string): string | undefined {
  const slash = Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\'));
  const dot = path.lastIndexOf('.');
  if (dot <= slash + 1) return undefined;
  const ext = path.slice(dot);
  return Object.hasOwn(view.extensionToLanguage, ext) ? view.extensionToLanguage[ext] : undefined;
}
