import { render } from 'ink';
import type { McpLive } from '../live/types.js';
import { App } from '../hosts/ui/App.js';
import { terminalSafe } from '../model/terminalText.js';

/** Streams of the terminal session; the process's own by default (tests pass fakes). */
export interface InteractiveIo {
  stdin?: NodeJS.ReadStream;
  stdout?: NodeJS.WriteStream;
  stderr?: NodeJS.WriteStream;
  /** Ink's console patching, so stray `console.log`s do not tear the screen (default true). */
  patchConsole?: boolean;
}

/**
 * `mcp-live` without `--json`: the Ink session. Renders first (so the first pass is seen
 * happening), then starts the pipeline; ends on Ctrl-C, `/quit`, SIGINT, SIGTERM or SIGHUP. Ink's own
 * Ctrl-C exit is off so the App handles it and the cleanup below always runs: unmount, then
 * `dispose()`, which ends every server process (no orphans). Resolves 0; 1 when there is no
 * terminal to run in or the session could not start.
 */
export async function runInteractive(
  live: McpLive,
  io: InteractiveIo = {},
  /** `/trust` (decision 304): trusts the session's folder; absent, the command says to run `mcp-live trust`. */
  trustFolder?: () => Promise<string>,
): Promise<number> {
  const stdin = io.stdin ?? process.stdin;
  const stderr = io.stderr ?? process.stderr;
  if (!stdin.isTTY) {
    stderr.write('mcp-live: the interactive session needs a terminal; use --json for a headless session.\n');
    await live.dispose();
    return 1;
  }

  let exit!: () => void;
  const exited = new Promise<void>((resolve) => (exit = resolve));
  // `on`, not `once`: Ink's signal-exit re-raises a signal that has no other listener left,
  // which would kill us before dispose() ends the server processes.
  process.on('SIGINT', exit);
  process.on('SIGTERM', exit);
  // The terminal closed (window or ssh gone): end every server as on a quit, not on a dead tty.
  process.on('SIGHUP', exit);
  try {
    const instance = render(<App live={live} onExit={exit} {...(trustFolder ? { trustFolder } : {})} />, {
      stdin,
      stdout: io.stdout ?? process.stdout,
      stderr,
      exitOnCtrlC: false,
      patchConsole: io.patchConsole ?? true,
    });
    // Either the user ends the session, or it never gets going (start fails): both clean up.
    const outcome = await Promise.race([
      exited.then(() => ({ ok: true as const })),
      live.start().then(
        () => exited.then(() => ({ ok: true as const })),
        (error: unknown) => ({ ok: false as const, error }),
      ),
    ]);
    instance.unmount();
    await instance.waitUntilExit();
    if (!outcome.ok) {
      stderr.write(`mcp-live: ${terminalSafe(outcome.error instanceof Error ? outcome.error.message : String(outcome.error), { multiline: true, indent: '  ' })}\n`);
      return 1;
    }
    return 0;
  } finally {
    process.removeListener('SIGINT', exit);
    process.removeListener('SIGTERM', exit);
    process.removeListener('SIGHUP', exit);
    await live.dispose();
  }
}
