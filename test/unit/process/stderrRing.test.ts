import { describe, expect, it } from 'vitest';
import { StderrRing } from '../../../src/process/stderrRing.js';

describe('StderrRing', () => {
  it('is empty at first', () => {
    const ring = new StderrRing(3);
    expect(ring.lines()).toEqual([]);
    expect(ring.lastLine()).toBeUndefined();
  });

  it('joins lines split across chunks and shows an unfinished last line', () => {
    const ring = new StderrRing(5);
    ring.write('hel');
    ring.write('lo\r\nwor');
    expect(ring.lines()).toEqual(['hello', 'wor']);
    ring.write('ld\n');
    expect(ring.lines()).toEqual(['hello', 'world']);
  });

  it('keeps the last N lines, oldest first', () => {
    const ring = new StderrRing(3);
    ring.write('1\n2\n3\n4\n5\n');
    expect(ring.lines()).toEqual(['3', '4', '5']);
    ring.write('6');
    expect(ring.lines()).toEqual(['4', '5', '6']);
  });

  it('names the last non-blank line, flushing an unfinished one at end()', () => {
    const ring = new StderrRing(5);
    ring.write('Error: boom\n\n  \n');
    expect(ring.lastLine()).toBe('Error: boom');
    ring.write('tail without newline');
    ring.end();
    expect(ring.lines().at(-1)).toBe('tail without newline');
  });

  it('redacts every line on the way in', () => {
    const ring = new StderrRing(5, (line) => line.replace('secret', '***'));
    ring.write('a secret\nanother sec');
    ring.write('ret');
    expect(ring.lines()).toEqual(['a ***', 'another ***']);
  });

  it('clips a line that never ends', () => {
    const ring = new StderrRing(2);
    ring.write('x'.repeat(100_000));
    expect(ring.lines()[0]!.length).toBeLessThan(10_000);
  });

  it('skips the Node.js version line that ends a crash report', () => {
    const ring = new StderrRing();
    ring.write("Error: Cannot find package '@modelcontextprotocol/sdk'\n    at resolve (node:internal)\n\nNode.js v20.20.2\n");
    expect(ring.lastLine()).toBe("Error: Cannot find package '@modelcontextprotocol/sdk'");
  });

  it('prefers the error line of a crash report over the stack frames after it, else the last line', () => {
    const ring = new StderrRing();
    ring.write('starting\nTypeError [ERR_X]: bad thing\n    at a (x.js:1)\n    at b (y.js:2)\n');
    expect(ring.lastLine()).toBe('TypeError [ERR_X]: bad thing');
    ring.write('recovered and running\n');
    expect(ring.lastLine()).toBe('TypeError [ERR_X]: bad thing');
    const plain = new StderrRing();
    plain.write('listening\nshutting down\n');
    expect(plain.lastLine()).toBe('shutting down');
  });

  it('masks a secret that straddles the 8 KiB line cut whole, in kept and in unfinished lines (found by test/slow)', () => {
    const secret = 'sk-live-0123456789abcdef';
    const mask = (line: string) => line.split(secret).join('***');
    const ring = new StderrRing(5, mask);
    // The cut falls inside the secret: all but its last character would be kept.
    const line = `${'y'.repeat(8 * 1024 - secret.length + 1)}${secret} tail`;
    ring.write(`${line}\n`);
    ring.write(line.slice(0, 6000));
    ring.write(line.slice(6000));
    expect(ring.lines()).toHaveLength(2);
    for (const kept of ring.lines()) {
      expect(kept).not.toContain(secret.slice(0, 8));
      expect(kept).toBe(`${'y'.repeat(8 * 1024 - secret.length + 1)}*** tail`);
    }
  });
});
