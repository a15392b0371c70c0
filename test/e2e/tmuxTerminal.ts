import { execFileSync, spawnSync } from 'node:child_process';
import { deadline } from '../deadlines.js';

/**
 * A real terminal for the CLI under test: one tmux session, typed into with `send-keys` and read
 * with `capture-pane`. Shared by every test that drives the interactive session in a terminal.
 */
export class TmuxTerminal {
  constructor(
    readonly session: string,
    /** Extra `capture-pane` flags: `-J -S -200` for joined lines and some scrollback. */
    private readonly captureFlags: readonly string[] = [],
  ) {}

  /** Whether tmux is there (`.ci/run` installs it). */
  static available(): boolean {
    return spawnSync('tmux', ['-V']).status === 0;
  }

  tmux(...args: string[]): string {
    return execFileSync('tmux', args, { encoding: 'utf8' });
  }

  /** What the pane shows now. */
  screen(): string {
    return this.tmux('capture-pane', '-p', ...this.captureFlags, '-t', this.session);
  }

  /** Polls the screen until `pred` holds; fails with `what` and the last screen after `timeoutMs`. */
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

  /** Ends the session (and whatever runs in it); nothing if it is gone already. */
  kill(): void {
    spawnSync('tmux', ['kill-session', '-t', this.session]);
  }
}
