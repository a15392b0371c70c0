/**
 * A child process for the idle scenario: one mcp-live session (real watcher, real servers) and
 * nothing else, so its CPU and memory are the session's own — comparable with mcp-hub's
 * process. Talks to the bench over IPC:
 *
 *   argv: <cwd> <homeDir> <debounceMs>
 *   → { type: 'ready', ms, connected }  once every server is connected (at most 120 s)
 *   ← { type: 'sample', gc }  → { type: 'sample', cpu, memory, heapAfterGc? } (gc after reading CPU)
 *   ← { type: 'stop' }    → { type: 'stopped' }, then exits
 */
import { filter, firstValueFrom, of, timeout } from 'rxjs';
import { createMcpLive } from '../src/live/createMcpLive.js';

export interface IdleSample {
  type: 'sample';
  cpu: NodeJS.CpuUsage;
  memory: NodeJS.MemoryUsage;
  heapAfterGc?: number;
}

export type IdleChildMessage = { type: 'ready'; ms: number; connected: number } | IdleSample | { type: 'stopped' } | { type: 'failed'; error: string };

const [cwd, homeDir, debounce] = process.argv.slice(2);
const send = (m: IdleChildMessage) => process.send?.(m);

const live = createMcpLive({ cwd, homeDir, debounceMs: Number(debounce ?? 300) });
const t0 = performance.now();
const connected = (): number => live.servers.status().filter((s) => s.state === 'connected').length;
// Ready once every server is connected (start() resolves after the first pass, while connects
// still run): mcp-hub's start is timed to all connected as well. Bounded: a server that never
// connects is reported by its count, not waited for.
live
  .start()
  .then(() => firstValueFrom(live.servers.list$.pipe(filter((all) => all.every((s) => s.state === 'connected')), timeout({ first: 120_000, with: () => of(undefined) }))))
  .then(
    () => send({ type: 'ready', ms: performance.now() - t0, connected: connected() }),
    (error: unknown) => send({ type: 'failed', error: String(error) }),
  );

process.on('message', (message: { type?: string; gc?: boolean }) => {
  if (message.type === 'sample') {
    // CPU and memory first: a gc asked for must not be counted as idle work.
    const cpu = process.cpuUsage();
    const memory = process.memoryUsage();
    const gc = (globalThis as { gc?: () => void }).gc;
    if (message.gc && gc) {
      gc();
      send({ type: 'sample', cpu, memory, heapAfterGc: process.memoryUsage().heapUsed });
    } else send({ type: 'sample', cpu, memory });
  }
  if (message.type === 'stop') {
    void live.dispose().then(() => {
      // Exit once the message is out (an exit right after send() may drop it).
      process.send?.({ type: 'stopped' } satisfies IdleChildMessage, undefined, undefined, () => process.exit(0));
    });
  }
});
