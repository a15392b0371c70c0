import { execFile, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { procProcesses, type ProcessInfo } from '../integration/processes.js';
import { deadline } from '../deadlines.js';

export const ROOT = resolve(import.meta.dirname, '../..');
export const CLI = join(ROOT, 'dist/src/cli/main.js');
export const FIXTURES = join(ROOT, 'test/fixtures');

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Ev = Record<string, any> & { type: string };

/** runCli in the workspace's directory, as a user in the project types it. */
export function runIn(ws: Workspace, ...args: string[]): Promise<CliRun> {
  return runCli(ws, args, { cwd: ws.cwd });
}

/** Vitest's `onTestFinished`: the test context's one, which concurrent tests need. */
export type OnFinished = (fn: () => void | Promise<void>) => void;

/**
 * A temp home + workspace with helpers to write settings the way editors do. Given the test's
 * `onTestFinished`, it is disposed of when the test ends: every session started in it stopped,
 * the directory removed (what each file's afterEach did, and what concurrent tests need).
 */
export class Workspace {
  readonly root = mkdtempSync(join(tmpdir(), 'mcp-live-e2e-'));
  readonly home = join(this.root, 'home');
  readonly cwd = join(this.root, 'project');
  readonly startLog = join(this.root, 'starts.log');
  readonly userSettings = join(this.home, '.qwen', 'settings.json');
  readonly workspaceSettings = join(this.cwd, '.qwen', 'settings.json');
  readonly mcpJson = join(this.cwd, '.mcp.json');
  readonly approvals = join(this.home, '.qwen', 'mcpApprovals.json');
  readonly trustedFolders = join(this.home, '.qwen', 'trustedFolders.json');
  /** The sessions started in it, stopped by dispose(). */
  readonly sessions: CliSession[] = [];

  constructor(onFinished?: OnFinished) {
    mkdirSync(join(this.home, '.qwen'), { recursive: true });
    mkdirSync(this.cwd, { recursive: true });
    writeFileSync(this.startLog, '');
    onFinished?.(() => this.dispose());
  }

  /** An echo fixture server entry that logs its start under `name`. */
  server(name: string, extra: string[] = [], more: Record<string, unknown> = {}) {
    return {
      command: process.execPath,
      args: [join(FIXTURES, 'echo-server.mjs'), '--start-log', this.startLog, '--log-name', name, ...extra],
      ...more,
    };
  }

  /** The user's yes to the workspace, as `mcp-live trust` writes it (decision 302): a test of something else whose servers the folder could redirect (`sh -c …`). */
  trust(): void {
    this.write(this.trustedFolders, { [this.cwd]: 'TRUST_FOLDER' });
  }

  write(file: string, value: unknown): void {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, typeof value === 'string' ? value : JSON.stringify(value, null, 2));
  }

  /** An editor-style save: write a temp file beside it, then rename over. */
  atomicWrite(file: string, value: unknown): void {
    const tmp = `${file}.tmp`;
    this.write(tmp, value);
    renameSync(tmp, file);
  }

  starts(): string[] {
    return readFileSync(this.startLog, 'utf8').split('\n').filter(Boolean).map((l) => l.replace(/ started$/, ''));
  }

  cleanup(): void {
    rmSync(this.root, { recursive: true, force: true });
  }

  /** Stops every session started in it (quit, then SIGKILL after a grace), then removes it. */
  async dispose(): Promise<void> {
    await Promise.all(this.sessions.splice(0).map((session) => session.stop()));
    this.cleanup();
  }
}

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs the built CLI to its end with the workspace's HOME (in `cwd`, the shell's directory, if
 * given): exit code, stdout, stderr.
 */
export async function runCli(
  ws: Workspace,
  args: string[],
  opts: { cwd?: string; env?: Record<string, string | undefined>; timeoutMs?: number } = {},
): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI, ...args],
      { env: { ...process.env, HOME: ws.home, ...opts.env }, timeout: deadline(opts.timeoutMs ?? 30_000), ...(opts.cwd === undefined ? {} : { cwd: opts.cwd }) },
      (error, stdout, stderr) => resolve({ code: error ? ((error as { code?: unknown }).code as number) : 0, stdout, stderr }),
    );
  });
}

/** The built CLI in `--json` mode, with every event it printed. */
export class CliSession {
  readonly events: Ev[] = [];
  stderr = '';
  private readonly exited: Promise<number | null>;

  private constructor(readonly proc: ChildProcessWithoutNullStreams) {
    createInterface({ input: proc.stdout }).on('line', (line) => {
      try {
        this.events.push(JSON.parse(line) as Ev);
      } catch {
        this.events.push({ type: 'unparsable', line });
      }
    });
    proc.stderr.on('data', (d: Buffer) => (this.stderr += d.toString()));
    this.exited = new Promise((res) => proc.once('exit', (code) => res(code)));
  }

  static start(ws: Workspace, args: string[] = [], env: Record<string, string> = {}): CliSession {
    const proc = spawn(
      process.execPath,
      [CLI, '--json', '--cwd', ws.cwd, '--debounce', '100', ...args],
      { env: { ...process.env, HOME: ws.home, ...env }, stdio: 'pipe' },
    );
    const session = new CliSession(proc);
    ws.sessions.push(session);
    return session;
  }

  send(cmd: Record<string, unknown> | string): void {
    this.proc.stdin.write(`${typeof cmd === 'string' ? cmd : JSON.stringify(cmd)}\n`);
  }

  /** Waits for an event after index `from` that matches; returns it. */
  async waitFor(pred: (e: Ev) => boolean, opts: { from?: number; timeoutMs?: number; what?: string } = {}): Promise<Ev> {
    const giveUpAt = Date.now() + deadline(opts.timeoutMs ?? 20_000);
    for (;;) {
      const found = this.events.slice(opts.from ?? 0).find(pred);
      if (found) return found;
      if (Date.now() > giveUpAt) {
        throw new Error(
          `timed out waiting for ${opts.what ?? 'an event'}; last events:\n${this.events
            .slice(-15)
            .map((e) => JSON.stringify(e))
            .join('\n')}\nstderr: ${this.stderr}`,
        );
      }
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  /** The latest `server` event of each server. */
  servers(): Map<string, Ev> {
    const m = new Map<string, Ev>();
    for (const e of this.events) if (e.type === 'server') m.set(e.name as string, e);
    return m;
  }

  reconciles(from = 0): Ev[] {
    return this.events.slice(from).filter((e) => e.type === 'reconcile');
  }

  /** Sends `cmd` with an id of its own and returns its `result`. */
  async request(cmd: Record<string, unknown>): Promise<Ev> {
    const id = `${String(cmd.cmd)}-${this.events.length}`;
    this.send({ ...cmd, id });
    return this.waitFor((e) => e.type === 'result' && e.id === id, { what: `result ${id}` });
  }

  async waitForState(name: string, state: string, from = 0): Promise<Ev> {
    return this.waitFor((e) => e.type === 'server' && e.name === name && e.state === state, {
      from,
      what: `${name} ${state}`,
    });
  }

  /** Quits through the protocol (or kills after a grace) and returns the exit code. */
  async stop(how: 'quit' | 'SIGTERM' | 'SIGINT' | 'SIGKILL' = 'quit'): Promise<number | null> {
    if (this.proc.exitCode === null) {
      if (how === 'quit') this.send({ cmd: 'quit' });
      else this.proc.kill(how);
    }
    const timer = setTimeout(() => this.proc.kill('SIGKILL'), deadline(15_000));
    const code = await this.exited;
    clearTimeout(timer);
    return code;
  }
}

/**
 * User settings with a comment of the user's and the echo server `u`, a `.mcp.json` with `p`
 * (gated), and a session with `u` connected: what the enable / disable tests edit. `userText` is
 * the user settings file as written.
 */
export async function sessionWithCommentedSettings(ws: Workspace): Promise<{ cli: CliSession; userText: string }> {
  const userText = `{\n  // mine\n  "mcpServers": {\n    "u": ${JSON.stringify(ws.server('u'))}\n  }\n}\n`;
  ws.write(ws.userSettings, userText);
  ws.write(ws.mcpJson, { mcpServers: { p: ws.server('p') } });
  const cli = CliSession.start(ws);
  await cli.waitForState('u', 'connected');
  return { cli, userText };
}

/** Resolves when nothing new arrived for `quietMs` (lets a debounce window pass). */
export async function settleFor(ms: number): Promise<void> {
  await new Promise((r) => setTimeout(r, ms));
}

/** The `result` of the command with this id. */
export const resultOf =
  (id: string | number) =>
  (e: Ev): boolean =>
    e.type === 'result' && e.id === id;

/** Polls `probe` every 25 ms until it holds; fails naming `what` after `timeoutMs`. */
export async function waitUntil(probe: () => boolean | Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
  const giveUpAt = Date.now() + deadline(timeoutMs);
  for (;;) {
    if (await probe()) return;
    if (Date.now() > giveUpAt) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

export type Proc = ProcessInfo;

/**
 * Live (non-zombie) processes whose command line mentions `text` (Linux /proc; none elsewhere).
 * Every path a test writes is under its workspace's root, so this finds what a test started even
 * when it is no descendant of ours (a detached gateway, a tmux pane's CLI).
 */
export function processesMentioning(text: string): Proc[] {
  return procProcesses().filter((p) => p.command.includes(text));
}
