import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resultsFileName } from '../../../bench/results.js';

const ROOT = resolve(import.meta.dirname, '../../..');

/**
 * Whether the repository's .gitignore ignores `path` (relative to the root): its patterns that
 * contain a `/` (anchored at the root, as git reads them), `*` within one path segment. Enough for
 * this file's paths; read from the file, so no git is needed.
 */
function ignored(path: string): boolean {
  return readFileSync(resolve(ROOT, '.gitignore'), 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#') && !line.startsWith('!') && line.slice(0, -1).includes('/'))
    .some((pattern) => {
      const body = pattern.replace(/^\//, '').replace(/\/$/, '');
      const regex = new RegExp(`^${body.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')}(/.*)?$`);
      return regex.test(path);
    });
}

describe('bench results files (decision 328)', () => {
  it('a quick run writes a file git ignores, so `npm run bench:quick` leaves a clone clean', () => {
    for (const name of ['quick', 'quick-cpu']) expect(ignored(`bench/results/${resultsFileName(name, 'quick')}`)).toBe(true);
  });

  it('a full run writes the committed record the docs are generated from', () => {
    expect(resultsFileName('full', 'full')).toBe('full.json');
    expect(ignored(`bench/results/${resultsFileName('full', 'full')}`)).toBe(false);
    expect(ignored(`bench/results/${resultsFileName('full-idle', 'full')}`)).toBe(false);
  });
});
