import { spawn } from 'node:child_process';
import { homedir } from 'node:os';
import { holdSecrets } from '../../model/settings/secrets.js';
import { terminalSafe } from '../../model/terminalText.js';
import { childEnvironment } from '../../process/serverProcess.js';
import { signalTree } from '../../platform/killTree.js';
import { neutralEnvironment, windowsShell } from '../../platform/resolveCommand.js';

/**
 * A remote server's `headersHelper` (Claude Code's field; decision 240): a shell command whose
 * stdout is a JSON object of string headers, run when the server connects and again when it
 * answers 401.
 *
 *   runHeadersHelper(helper, run):  --(sh -c command, exit 0, JSON object)--H|     H = headers
 *                                   --(exits 1)--#            # = "headersHelper exited with code 1: <first stderr line>"
 *                                   --(10 s pass)--(kill)--#  # = "headersHelper timed out after 10000 ms"
 *                                   --(64 KiB of stdout)--(kill)--#
 *
 * Bounded: a deadline, a cap on stdout and on the stderr kept; whatever the shell started is
 * killed (its process group) when the run is given up. Its output is a secret: every value (and
 * the credential of a `Bearer …` one) joins the secrets every masker masks (`holdSecrets`) before
 * anyone sees it, and no message quotes the output.
 *
 * Where it runs (decision 299): a gated server's helper in the workspace (its `cwd`), any other's
 * in the user's home directory — never in a folder whose files the shell could pick up. Its
 * shell is an absolute path (`/bin/sh`; on win32 the cmd.exe of resolveCommand.ts), and its
 * PATH keeps only absolute entries (on win32 with `NoDefaultCurrentDirectoryInExePath=1`), as a
 * server's does (decision 298).
 */

/** How long a helper may run (Claude Code's bound too). */
export const HEADERS_HELPER_TIMEOUT_MS = 10_000;
/** The most a helper may print: a JSON object of a few headers is far smaller. */
export const HEADERS_HELPER_MAX_BYTES = 64 * 1024;
/** Of stderr, only the start is kept: the message quotes its first line. */
const STDERR_KEPT_BYTES = 4 * 1024;
/** The longest stderr line a message quotes. */
const STDERR_LINE_CHARS = 200;

/** A resolved `headersHelper` (see `ResolvedServerConfig.headersHelper`). */
export interface HeadersHelper {
  command: string;
  /** Where it runs; absent: the user's home directory (decision 299). */
  cwd?: string;
}

export interface HeadersHelperRun {
  /** The server's name and URL, given to the helper as MCP_LIVE_SERVER_NAME / _URL (and Claude Code's names). */
  server: string;
  url: string;
  signal?: AbortSignal;
  timeoutMs?: number;
  maxBytes?: number;
}

/** A helper that did not give headers: the server's connect fails with this message. */
export class HeadersHelperFailed extends Error {
  constructor(message: string) {
    super(`headersHelper ${message}`);
    this.name = 'HeadersHelperFailed';
  }
}

/** Header names as RFC 9110 has them (a token); values without line breaks or NUL. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const BAD_VALUE = /[\r\n\0]/;
/** `Bearer <credential>`: the credential is held on its own too (the scheme word is no secret). */
const SCHEMED = /^(?:basic|bearer|digest|token)\s+(\S+)$/i;

/** Runs the helper once; resolves with its headers (their values held as secrets). */
export function runHeadersHelper(helper: HeadersHelper, run: HeadersHelperRun): Promise<Record<string, string>> {
  const timeoutMs = run.timeoutMs ?? HEADERS_HELPER_TIMEOUT_MS;
  const maxBytes = run.maxBytes ?? HEADERS_HELPER_MAX_BYTES;
  return new Promise<Record<string, string>>((resolve, reject) => {
    if (run.signal?.aborted) return reject(new HeadersHelperFailed('was not run: the connect was given up'));
    const child = spawn(helper.command, { ...helperSpawnOptions(helper, run), stdio: ['ignore', 'pipe', 'pipe'], windowsHide: true });
    const stdout: Buffer[] = [];
    let stdoutBytes = 0;
    let stderr = '';
    let settled = false;
    const finish = (outcome: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      run.signal?.removeEventListener('abort', onAbort);
      outcome();
    };
    const giveUp = (message: string): void =>
      finish(() => {
        // Its whole tree: the process group on POSIX, `taskkill /T /F` on Windows (decision 271).
        void signalTree(child, 'SIGKILL');
        reject(new HeadersHelperFailed(message));
      });
    const timer = setTimeout(() => giveUp(`timed out after ${timeoutMs} ms`), timeoutMs);
    const onAbort = (): void => giveUp('was stopped: the connect was given up');
    run.signal?.addEventListener('abort', onAbort, { once: true });

    child.stdout.on('data', (chunk: Buffer) => {
      stdoutBytes += chunk.length;
      if (stdoutBytes > maxBytes) return giveUp(`printed more than ${maxBytes} bytes (a JSON object of headers is expected)`);
      stdout.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < STDERR_KEPT_BYTES) stderr += chunk.toString('utf8').slice(0, STDERR_KEPT_BYTES - stderr.length);
    });
    child.once('error', (error) => giveUp(`could not start: ${error.message}`));
    child.once('close', (code, signal) => {
      if (settled) return;
      const why = firstLine(stderr);
      if (signal !== null) return giveUp(`was killed by ${signal}${why ? ` (stderr: ${why})` : ''}`);
      if (code !== 0) return giveUp(`exited with code ${code ?? '?'}${why ? `: ${why}` : ''}`);
      const parsed = parseHeaders(Buffer.concat(stdout).toString('utf8'));
      if (typeof parsed === 'string') return giveUp(parsed);
      finish(() => resolve(parsed));
    });
  });
}

/** How a helper's shell is started (see the module comment): its shell, directory, environment, group. */
export function helperSpawnOptions(
  helper: HeadersHelper,
  run: Pick<HeadersHelperRun, 'server' | 'url'>,
  platform: NodeJS.Platform = process.platform,
  base: NodeJS.ProcessEnv = process.env,
): { shell: string | true; cwd: string; env: Record<string, string>; detached: boolean } {
  const names = { MCP_LIVE_SERVER_NAME: run.server, MCP_LIVE_SERVER_URL: run.url, CLAUDE_CODE_MCP_SERVER_NAME: run.server, CLAUDE_CODE_MCP_SERVER_URL: run.url };
  const env = neutralEnvironment(childEnvironment(names, base, platform), platform);
  return {
    // Node's own pick is `/bin/sh`; on win32 it is our process's `%ComSpec%`, or a bare `cmd.exe`.
    shell: platform === 'win32' ? windowsShell(env) : true,
    cwd: helper.cwd ?? homedir(),
    env,
    // Its own process group, so that a timeout ends what the shell started too.
    detached: platform !== 'win32',
  };
}

/**
 * The headers a helper printed, or what is wrong with them (naming a header, never a value).
 * Every value is held as a secret first, whatever else is wrong.
 */
function parseHeaders(text: string): Record<string, string> | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return 'did not print JSON (a JSON object of string headers is expected)';
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'did not print a JSON object of string headers';
  const entries = Object.entries(value as Record<string, unknown>);
  for (const [, v] of entries) if (typeof v === 'string') holdSecrets(v, SCHEMED.exec(v)?.[1]);
  const headers: Record<string, string> = {};
  for (const [name, v] of entries) {
    const shown = JSON.stringify(terminalSafe(name.slice(0, 64)));
    if (typeof v !== 'string') return `printed a header that is not a string (${shown})`;
    if (!HEADER_NAME.test(name)) return `printed an invalid header name (${shown})`;
    if (BAD_VALUE.test(v)) return `printed a header whose value holds a line break (${shown})`;
    // Object.fromEntries-like: a `__proto__` header stays a header.
    Object.defineProperty(headers, name, { value: v, enumerable: true, writable: true, configurable: true });
  }
  return headers;
}

/** The first non-empty line of stderr, shortened and fit for a terminal. */
function firstLine(stderr: string): string {
  const line = stderr.split(/\r?\n/).find((l) => l.trim() !== '')?.trim() ?? '';
  const cut = line.length > STDERR_LINE_CHARS ? `${line.slice(0, STDERR_LINE_CHARS)}…` : line;
  return terminalSafe(cut);
}

/**
 * The merge of `headers` and a helper's output (decision 240): the helper's win, compared
 * without regard to case, so `authorization` in the entry and `Authorization` from the helper
 * send one header, the helper's.
 */
export function mergeHelperHeaders(headers: Readonly<Record<string, string>>, helper: Readonly<Record<string, string>>): Record<string, string> {
  const overridden = new Set(Object.keys(helper).map((name) => name.toLowerCase()));
  const merged: Record<string, string> = {};
  const put = (name: string, v: string): void => {
    Object.defineProperty(merged, name, { value: v, enumerable: true, writable: true, configurable: true });
  };
  for (const [name, v] of Object.entries(headers)) if (!overridden.has(name.toLowerCase())) put(name, v);
  for (const [name, v] of Object.entries(helper)) put(name, v);
  return merged;
}
