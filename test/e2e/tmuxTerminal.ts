import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deadline } from '../deadlines.js';

/**
 * A real terminal for the CLI under test: one tmux session, typed into with `send-keys` and read
 * with `capture-pane`. Shared by every test that drives the interactive session in a terminal.
 *
 * The session lives on a tmux server of its own (decision 317): `tmux -S <socket>` in a temporary
 * directory the terminal makes, with no configuration file read (`-f /dev/null`), so the user's
 * own tmux server, its sessions and `~/.tmux.conf` are never touched. {@link kill} ends that
 * server and removes the directory.
 */
export class TmuxTerminal {
  /** The temporary directory holding the private server's socket. */
  readonly dir = mkdtempSync(join(tmpdir(), 'mcp-live-tmux-'));
  readonly socket = join(this.dir, 'tmux.sock');

  constructor(
    readonly session: string,
    /** Extra `capture-pane` flags: `-J -S -200` for joined lines and some scrollback. */
    private readonly captureFlags: readonly string[] = [],
  ) {}

  /** Whether tmux is there (`.ci/run` installs it). */
  static available(): boolean {
    return spawnSync('tmux', ['-V']).status === 0;
  }

  /** The arguments of every tmux command of this terminal: its private server, no configuration. */
  private argv(args: readonly string[]): string[] {
    return ['-S', this.socket, '-f', '/dev/null', ...args];
  }

  /** Runs a tmux command on this terminal's private server. `TMUX` is dropped: a suite run from
   *  inside the user's tmux must not reach for that server either. */
  tmux(...args: string[]): string {
    // Again after a kill() between two tests of a file: the socket's directory must exist.
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    return execFileSync('tmux', this.argv(args), { encoding: 'utf8', env: { ...process.env, TMUX: undefined } });
  }

  /** What the pane shows now. */
  screen(): string {
    return this.tmux('capture-pane', '-p', ...this.captureFlags, '-t', this.session);
  }

  /** Polls the screen until `pred` holds; fails with `what` and the last screen after `timeoutMs` (scaled, decision 316). */
  async waitForScreen(pred: (screen: string) => boolean, what: string, timeoutMs = 30_000): Promise<string> {
    const giveUpAt = Date.now() + deadline(timeoutMs);
    for (;;) {
      const s = this.screen();
      if (pred(s)) return s;
      if (Date.now() > giveUpAt) throw new Error(`timed out waiting for ${what}; screen:\n${s}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** Types `text` literally, then Enter. */
  type(text: string): void {
    this.tmux('send-keys', '-t', this.session, '-l', text);
    this.tmux('send-keys', '-t', this.session, 'Enter');
  }

  /** Presses keys by tmux's names (`Enter`, `Escape`, `C-c` …). */
  press(...keys: string[]): void {
    this.tmux('send-keys', '-t', this.session, ...keys);
  }

  /** Ends the private server (and whatever runs in it) and removes its directory; safe to call twice. */
  kill(): void {
    spawnSync('tmux', this.argv(['kill-server']), { env: { ...process.env, TMUX: undefined } });
    rmSync(this.dir, { recursive: true, force: true });
  }
}
