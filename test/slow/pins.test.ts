import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { waitForNoLeftovers } from '../integration/processes.js';
import { POSIX } from '../platforms.js';
import { LineWorker, report } from './kit.js';

/**
 * Trust on first use across processes (decision 308): a gateway and a CLI share the pin file, and
 * both can see a server for the first time at once. Whoever pins first holds; the other adopts it.
 */

afterAll(async () => {
  expect(await waitForNoLeftovers()).toEqual([]);
});

describe('pins', () => {
  it('two processes seeing one server first at the same moment, 100 times: one pin holds for both, and none is replaced', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-live-pin-race-'));
    const file = join(dir, 'mcp-pins.json');
    const [one, two] = [new LineWorker('pin-worker.mjs', file), new LineWorker('pin-worker.mjs', file)];
    const started = Date.now();
    const holders: string[] = [];
    try {
      for (let round = 0; round < 100; round++) {
        const [a, b] = await Promise.all([one.ask({ id: `${round}`, fingerprint: `fp-${round}`, description: 'one' }), two.ask({ id: `${round}`, fingerprint: `fp-${round}`, description: 'two' })]);
        const held = a.split(' ')[2];
        // Both processes go on with the same pin: whichever was written first.
        expect([a, b], `round ${round}`).toEqual([`pinned ${round} ${held}`, `pinned ${round} ${held}`]);
        holders.push(held!);
        const pins = (JSON.parse(readFileSync(file, 'utf8')) as { pins: Record<string, { pin: { tools: { digest: string }[] } }> }).pins;
        expect(Object.keys(pins), `after round ${round}`).toHaveLength(round + 1);
      }
      // Seen again by both: every pin stays as it was first written.
      for (let round = 0; round < 100; round++) {
        const [a, b] = await Promise.all([one.ask({ id: `again-${round}`, fingerprint: `fp-${round}`, description: 'two' }), two.ask({ id: `again-${round}`, fingerprint: `fp-${round}`, description: 'one' })]);
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
