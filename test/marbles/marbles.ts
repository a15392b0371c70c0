/**
 * A thin vitest adapter for rxjs-marbles, which ships adapters for jest, jasmine, mocha, ava
 * and tape but not vitest. It mirrors `rxjs-marbles/jest`: the library's core `configure()`
 * with vitest's `expect(…).toStrictEqual` as the deep-equality assertion, so a failing marble
 * test shows vitest's structured diff of the frames instead of a flat message.
 *
 * Usage:
 * ```ts
 * it('emits the last of a burst', marbles((m) => {
 *   m.expect(source.pipe(settle(3, m.scheduler))).toBeObservable('----c');
 * }));
 * ```
 * Tests run inside `TestScheduler.run()`, so `asyncScheduler` is virtual too and time
 * progression syntax (`300ms`) is available in the marbles.
 */
import { configure, type Context } from 'rxjs-marbles';
import { _cases, type NamedCase, type UnnamedCase } from 'rxjs-marbles/cases.js';
import { describe, expect, it } from 'vitest';

export type { Context } from 'rxjs-marbles';

const configured = configure({
  assertDeepEqual: (actual: unknown, expected: unknown) => expect(actual).toStrictEqual(expected),
  frameworkMatcher: true,
});

/** Wraps a test body so it runs in virtual time: `it('…', marbles((m) => { … }))`. */
export const marbles = configured.marbles;

/**
 * Declares a `describe` block with one marble test per case, as the jest adapter does.
 * Cases are given as `{ [name]: case }` or as an array of cases with a `name`; a case
 * may set `only` or `skip`.
 */
export function cases<T extends UnnamedCase>(
  name: string,
  body: (m: Context, c: T & NamedCase) => void,
  table: Record<string, T> | (T & NamedCase)[],
): void {
  describe(name, () => {
    _cases((c: NamedCase) => {
      const test = c.only ? it.only : c.skip ? it.skip : it;
      test(
        c.name,
        marbles((m: Context) => body(m, c as T & NamedCase)),
      );
    }, table as Record<string, T>);
  });
}
