/**
 * Shared pieces of the slow suite: secret-looking values every scenario carries (and a scanner
 * that fails when one of them shows up anywhere), config builders for the fixture servers, and
 * /proc probes for memory, file descriptors and processes.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { CliSession, FIXTURES, Workspace } from '../e2e/cliSession.js';
import { sleep, waitForNoLeftovers } from '../integration/processes.js';
import { deadline } from '../deadlines.js';

// --- secrets ---------------------------------------------------------------------------------

/** A server config's env value, from the session's environment (`${MCP_LIVE_SLOW_API_KEY}`). */
export const ENV_SECRET = 'sk-live-ENVSECRET-7f3a9c2b';
/** Reaches the config through `${MCP_LIVE_SLOW_SECRET}` expansion from the session's environment. */
export const EXPANDED_SECRET = 'ghp_EXPANDEDSECRET_41d0e6';
/** A header value, with a scheme word in front. */
export const HEADER_TOKEN = 'tok-HEADERSECRET-91b2e4f';
export const API_KEY_HEADER = 'key-APIKEYSECRET-5c77';

/** Distinctive cores: a secret cut short (by clipping, say) still contains them. */
const SECRET_CORES = ['ENVSECRET', 'EXPANDEDSECRET', 'HEADERSECRET', 'APIKEYSECRET'];

/** The environment a session under test runs with. */
export const SECRET_PROCESS_ENV: Record<string, string> = { MCP_LIVE_SLOW_SECRET: EXPANDED_SECRET, MCP_LIVE_SLOW_API_KEY: ENV_SECRET };

/**
 * `env` of every stdio server config in the slow suite: both secrets reach the config from the
 * user's environment, so they are the user's wherever the entry stands — a literal in a
 * repository's file is the repository's and is shown as written (decision 166).
 */
export function secretEnv(): Record<string, string> {
  return { API_KEY: '${MCP_LIVE_SLOW_API_KEY}', GITHUB_TOKEN: '${MCP_LIVE_SLOW_SECRET}' };
}

/** `headers` of every remote server config in the slow suite. */
export function secretHeaders(): Record<string, string> {
  return { Authorization: `Bearer ${HEADER_TOKEN}`, 'X-Api-Key': API_KEY_HEADER };
}

/** Every secret (or secret core) found in `text`. */
export function secretsIn(text: string): string[] {
  return SECRET_CORES.filter((core) => text.includes(core));
}

/** Fails naming where a secret showed up. */
export function expectNoSecrets(where: string, ...texts: readonly unknown[]): void {
  for (const value of texts) {
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    expect(secretsIn(text), `${where} must not contain a secret`).toEqual([]);
  }
}

/** Makes sure the scanner itself works: a self-test each file runs once. */
export function expectScannerWorks(): void {
  expect(secretsIn(`x ${ENV_SECRET.slice(0, 18)} y`)).toEqual(['ENVSECRET']);
  expect(secretsIn(JSON.stringify({ e: `Bearer ${HEADER_TOKEN}` }))).toEqual(['HEADERSECRET']);
}

// --- fixture configs -------------------------------------------------------------------------

export const fixturePath = (name: string): string => join(FIXTURES, name);

/**
 * A stdio config of the SDK-free tiny fixture, carrying the secret env; it leaks both env values to
 * stderr at startup, so redaction is exercised on every start.
 */
export function tiny(name: string, opts: { tools?: string[]; rev?: number | string; startLog?: string } = {}): Record<string, unknown> {
  const args = [fixturePath('tiny-server.mjs'), '--log-name', name, '--echo-env', 'API_KEY,GITHUB_TOKEN'];
  if (opts.tools) args.push('--tools', opts.tools.join(','));
  if (opts.rev !== undefined) args.push('--rev', String(opts.rev));
  if (opts.startLog) args.push('--start-log', opts.startLog);
  return { command: process.execPath, args, env: secretEnv() };
}

/** A stdio config of an SDK fixture with the secret env. */
export function sdkFixture(script: string, args: string[] = [], extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { command: process.execPath, args: [fixturePath(script), ...args], env: secretEnv(), ...extra };
}

// --- the CLI ---------------------------------------------------------------------------------

/** The built CLI in `--json` mode, with the secret environment. */
export function startCli(ws: Workspace, args: string[] = [], env: Record<string, string> = {}): CliSession {
  return CliSession.start(ws, args, { ...SECRET_PROCESS_ENV, ...env });
}

/** Stops a session and scans everything it printed for secrets. */
export async function stopAndScan(cli: CliSession, how: 'quit' | 'SIGTERM' | 'SIGINT' = 'quit'): Promise<number | null> {
  const code = await cli.stop(how);
  expectNoSecrets('the CLI stdout (events)', cli.events);
  expectNoSecrets('the CLI stderr', cli.stderr);
  return code;
}

/**
 * The hooks a scenario file shares (called once, at its top): the scanner's self-test before the
 * file; after each test, the session it started stopped and scanned for secrets and its workspace
 * removed; after the file, no server process left behind. A test makes its workspace with
 * `workspace()` and its session with `start(…)` (as {@link startCli}), so the hooks end them.
 */
export function scenarioEachTest(): { workspace(): Workspace; start(...args: Parameters<typeof startCli>): CliSession } {
  let ws: Workspace | undefined;
  let cli: CliSession | undefined;
  beforeAll(() => expectScannerWorks());
  afterEach(async () => {
    if (cli) await stopAndScan(cli);
    cli = undefined;
    ws?.cleanup();
    ws = undefined;
  });
  afterAll(async () => {
    expect(await waitForNoLeftovers()).toEqual([]);
  });
  return {
    workspace: () => (ws = new Workspace()),
    start: (...args) => (cli = startCli(...args)),
  };
}

// --- /proc probes ----------------------------------------------------------------------------

/** Open file descriptors of a process (default: this one). */
export function fdCount(pid: number | 'self' = 'self'): number {
  return readdirSync(`/proc/${pid}/fd`).length;
}

/** Resident set size in bytes, from /proc/<pid>/status. */
export function rssOf(pid: number | 'self' | undefined = 'self'): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'));
  return Number(/(\d+)/.exec(line ?? '')?.[1] ?? 0) * 1024;
}

/** Live (non-zombie) processes in process group `pgid`. */
export function groupMembers(pgid: number): number[] {
  const members: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(pgrp) === pgid && state !== 'Z' && state !== 'X') members.push(Number(entry));
    } catch {
      // Gone while we looked.
    }
  }
  return members;
}

let collect: (() => void) | undefined;

/** A full garbage collection (exposes `gc` once per process). */
export function fullGc(): void {
  if (!collect) {
    setFlagsFromString('--expose-gc');
    collect = runInNewContext('gc') as () => void;
  }
  collect();
  collect();
}

export const MB = 1024 * 1024;
export const mb = (bytes: number): string => `${(bytes / MB).toFixed(1)} MB`;

/** Polls `check` until true; fails with `what` after `ms`. */
export async function waitUntil(what: string, check: () => boolean, ms = 20_000): Promise<void> {
  const giveUpAt = Date.now() + deadline(ms);
  while (!check()) {
    if (Date.now() > giveUpAt) throw new Error(`timed out after ${ms} ms waiting for: ${what}`);
    await sleep(20);
  }
}

/** Figures a test measured, printed in one greppable line for docs/reliability.md. */
export function report(what: string, figures: Record<string, unknown>): void {
  process.stdout.write(`[reliability] ${what}: ${JSON.stringify(figures)}\n`);
}

/**
 * A worker process of test/fixtures that reads one JSON request a line and answers each with a
 * line `<word> <id> …` (approve-worker.mjs, pin-worker.mjs): two of them race on one file.
 */
export class LineWorker {
  private readonly proc: ChildProcessWithoutNullStreams;
  private readonly waiting = new Map<string, (line: string) => void>();

  constructor(fixture: string, file: string) {
    this.proc = spawn(process.execPath, [fixturePath(fixture), file], { stdio: 'pipe' });
    createInterface({ input: this.proc.stdout }).on('line', (line) => {
      const id = line.split(' ')[1]!;
      this.waiting.get(id)?.(line);
      this.waiting.delete(id);
    });
  }

  /** Sends `request` (with its `id`) and resolves with the worker's answer line. */
  ask(request: { id: string } & Record<string, unknown>): Promise<string> {
    return new Promise((resolve) => {
      this.waiting.set(request.id, resolve);
      this.proc.stdin.write(`${JSON.stringify(request)}\n`);
    });
  }

  stop(): Promise<void> {
    return new Promise((resolve) => {
      this.proc.once('exit', () => resolve());
      this.proc.stdin.end();
    });
  }
}
