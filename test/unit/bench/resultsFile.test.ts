import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resultsFileName } from '../../../bench/results.js';

const ROOT = resolve(import.meta.dirname, '../../..');

/** Whether git ignores `path` in this clone (`git check-ignore` exits 0 for an ignored path). */
function ignored(path: string): boolean {
  try {
    execFileSync('git', ['check-ignore', '--no-index', '-q', path], { cwd: ROOT, stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

describe('bench results files (decision 328)', () => {
  it('a quick run writes a file git ignores, so `npm run bench:quick` leaves a clone clean', () => {
    for (const name of ['quick', 'quick-cpu']) {
      const file = `bench/results/${resultsFileName(name, 'quick')}`;
      expect(ignored(file)).toBe(true);
      expect(execFileSync('git', ['ls-files', file], { cwd: ROOT, encoding: 'utf8' })).toBe('');
    }
  });

  it('a full run writes the committed record the docs are generated from', () => {
    expect(resultsFileName('full', 'full')).toBe('full.json');
    expect(ignored(`bench/results/${resultsFileName('full', 'full')}`)).toBe(false);
    expect(ignored(`bench/results/${resultsFileName('full-idle', 'full')}`)).toBe(false);
  });
});
