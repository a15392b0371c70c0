import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { capLogWhileRunning, LOG_CAP_BYTES, olderLog, rotateLog } from '../../../src/platform/logRotation.js';

/** The gateway daemon's log is kept to 1 MiB and one older generation (decision 284). */

let dir: string;
let log: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'mcp-live-log-'));
  log = join(dir, 'gateway-qwen-0123456789abcdef.log');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const busy = (): never => {
  throw Object.assign(new Error(`EBUSY: resource busy or locked, rename '${log}'`), { code: 'EBUSY' });
};

describe('rotateLog (a client, before it starts a daemon)', () => {
  it('leaves a log under the cap, and a missing log, alone', () => {
    expect(rotateLog(log)).toBe(false);
    writeFileSync(log, 'x'.repeat(LOG_CAP_BYTES - 1));
    expect(rotateLog(log)).toBe(false);
    expect(statSync(log).size).toBe(LOG_CAP_BYTES - 1);
    expect(existsSync(olderLog(log))).toBe(false);
  });

  it('at 1 MiB the log becomes <log>.1, replacing the one before, and a new log begins', () => {
    writeFileSync(olderLog(log), 'the generation before');
    writeFileSync(log, 'y'.repeat(LOG_CAP_BYTES));
    expect(rotateLog(log)).toBe(true);
    expect(existsSync(log)).toBe(false);
    expect(readFileSync(olderLog(log), 'utf8')).toBe('y'.repeat(LOG_CAP_BYTES));
  });

  it('where the rename is refused (Windows: a process still holds the log), copies it to .1 and cuts it', () => {
    writeFileSync(log, 'held open\n');
    expect(rotateLog(log, { capBytes: 5, rename: busy })).toBe(true);
    expect(readFileSync(olderLog(log), 'utf8')).toBe('held open\n');
    expect(readFileSync(log, 'utf8')).toBe('');
  });

  it('never throws: a log that cannot be kept small stays as it is', () => {
    writeFileSync(log, 'stuck\n');
    expect(rotateLog(log, { capBytes: 1, rename: busy, copy: busy })).toBe(false);
    expect(readFileSync(log, 'utf8')).toBe('stuck\n');
  });
});

describe('capLogWhileRunning (the daemon, whose stdout is the log)', () => {
  it('cuts the log it writes to through an inherited append descriptor, and its next line starts the log again', async () => {
    // As startDaemon opens it for the daemon's stdout and stderr.
    const fd = openSync(log, 'a', 0o600);
    try {
      const stop = capLogWhileRunning(log, { capBytes: 100, everyMs: 10 });
      writeSync(fd, `${'e'.repeat(150)}\n`);
      await sleep(80);
      expect(readFileSync(olderLog(log), 'utf8')).toBe(`${'e'.repeat(150)}\n`);
      expect(statSync(log).size).toBe(0);
      writeSync(fd, 'next event\n');
      // At the start of the file, not after a hole where the cut content was.
      expect(readFileSync(log, 'utf8')).toBe('next event\n');
      stop();
      writeSync(fd, 'z'.repeat(200));
      await sleep(50);
      expect(statSync(log).size).toBe(11 + 200);
    } finally {
      closeSync(fd);
    }
  });

  it('checks only when its timer fires, not at once', () => {
    writeFileSync(log, 'x'.repeat(10));
    const sizes: string[] = [];
    const stop = capLogWhileRunning(log, { capBytes: 1, everyMs: 60_000, size: (p) => (sizes.push(p), 10) });
    expect(sizes).toEqual([]);
    stop();
    expect(readFileSync(log, 'utf8')).toBe('x'.repeat(10));
  });
});
