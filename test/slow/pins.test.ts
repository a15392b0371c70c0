import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { waitForNoLeftovers } from '../integration/processes.js';
import { POSIX } from '../platforms.js';
import { fixturePath, report } from './kit.js';

/**
 * Trust on first use across processes (decision 308): a gateway and a CLI share the pin file, and
 * both can see a server for the first time at once. Whoever pins first holds; the other adopts it.
 */

afterAll(async () => {
  expect(await waitForNoLeftovers()).toEqual([]);
});

/** A worker process that pins first sights when told to (test/fixtures/pin-worker.mjs). */
class Worker {
  private readonly proc: ChildProcessWithoutNullStreams;
  private readonly waiting = new Map<string, (line: string) => void>();

  constructor(file: string) {
    this.proc = spawn(process.execPath, [fixturePath('pin-worker.mjs'), file], { stdio: 'pipe' });
    createInterface({ input: this.proc.stdout }).on('line', (line) => {
      const id = line.split(' ')[1]!;
      this.waiting.get(id)?.(line);
      this.waiting.delete(id);
    });
  }

  pinFirst(id: string, fingerprint: string, description: string): Promise<string> {
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.proc.stdin.write(`${JSON.stringify({ id, fingerprint, description })}\n`);
    });
  }

  stop(): Promise<void> {
    return new Promise((resolve) => {
      this.proc.once('exit', () => resolve());
      this.proc.stdin.end();
    });
  }
}

describe('pins', () => {
  it('two processes seeing one server first at the same moment, 100 times: one pin holds for both, and none is replaced', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-live-pin-race-'));
    const file = join(dir, 'mcp-pins.json');
    const [one, two] = [new Worker(file), new Worker(file)];
    const started = Date.now();
    const holders: string[] = [];
    try {
      for (let round = 0; round < 100; round++) {
        const [a, b] = await Promise.all([one.pinFirst(`${round}`, `fp-${round}`, 'one'), two.pinFirst(`${round}`, `fp-${round}`, 'two')]);
        const held = a.split(' ')[2];
        // Both processes go on with the same pin: whichever was written first.
        expect([a, b], `round ${round}`).toEqual([`pinned ${round} ${held}`, `pinned ${round} ${held}`]);
        holders.push(held!);
        const pins = (JSON.parse(readFileSync(file, 'utf8')) as { pins: Record<string, { pin: { tools: { digest: string }[] } }> }).pins;
        expect(Object.keys(pins), `after round ${round}`).toHaveLength(round + 1);
      }
      // Seen again by both: every pin stays as it was first written.
      for (let round = 0; round < 100; round++) {
        const [a, b] = await Promise.all([one.pinFirst(`again-${round}`, `fp-${round}`, 'two'), two.pinFirst(`again-${round}`, `fp-${round}`, 'one')]);
        expect([a, b]).toEqual([`pinned again-${round} ${holders[round]}`, `pinned again-${round} ${holders[round]}`]);
      }
    } finally {
      await Promise.all([one.stop(), two.stop()]);
    }
    if (POSIX) expect(statSync(file).mode & 0o777).toBe(0o600);
    report('concurrent first sights', { rounds: 100, writers: 2, firstByOne: holders.filter((h) => h === 'one').length, ms: Date.now() - started });
    rmSync(dir, { recursive: true, force: true });
  });
});
