import { createInterface } from 'node:readline';
import type { McpLive } from '../createMcpLive.js';
import { ndjsonWriter } from '../sinks/ndjsonWriter.js';
import { runJsonCommand } from './jsonCommands.js';

/**
 * `mcp-live --json`: events as NDJSON on stdout, commands as JSON lines on stdin. EOF on stdin
 * does not stop the session (a supervisor may close it); SIGINT, SIGTERM and `{"cmd":"quit"}`
 * do, after every server process has ended.
 */
export async function runJsonSession(
  live: McpLive,
  io: { stdin: NodeJS.ReadableStream; stdout: NodeJS.WritableStream },
): Promise<number> {
  const write = ndjsonWriter(io.stdout);
  const output = live.events$.subscribe((event) => write(event));
  let stop!: () => void;
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  const onSignal = () => stop();
  // `on`, not `once`: signal-exit (used by write-file-atomic) re-raises a signal that has no
  // listener left, which would kill us before every server process is ended.
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  const lines = createInterface({ input: io.stdin, crlfDelay: Infinity });
  // Commands run one after another, in the order they were typed.
  let queue = Promise.resolve();
  lines.on('line', (line) => {
    if (line.trim() === '') return;
    queue = queue.then(async () => {
      const outcome = await runJsonCommand(line, live);
      write({ ...outcome.result, ts: Date.now() }, { verbatimData: outcome.verbatimData === true });
      if (outcome.quit) stop();
    });
  });

  await Promise.race([live.start(), stopped]);
  await stopped;
  lines.close();
  process.removeListener('SIGINT', onSignal);
  process.removeListener('SIGTERM', onSignal);
  await live.dispose();
  output.unsubscribe();
  return 0;
}
