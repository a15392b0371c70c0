import { of } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { exhaustMapWithTrailing } from '../../src/operators/exhaustMapWithTrailing.js';
import { cases, marbles } from './marbles.js';

describe('exhaustMapWithTrailing', () => {
  it(
    'completes for an empty source',
    marbles((m) => {
      const source = m.cold<string>('   |');
      const expected = '                 |';
      m.expect(source.pipe(exhaustMapWithTrailing((v) => of(v)))).toBeObservable(expected);
    }),
  );

  it(
    'never emits for a never source',
    marbles((m) => {
      const source = m.cold<string>('   -');
      const expected = '                 -';
      m.expect(source.pipe(exhaustMapWithTrailing((v) => of(v)))).toBeObservable(expected);
    }),
  );

  it(
    'passes an error of the source on and unsubscribes the running inner',
    marbles((m) => {
      const source = m.hot<string>('    -a-#');
      const a = m.cold('                 -----(A|)');
      const aSubs = '                  -^-!';
      const expected = '                 ---#';
      m.expect(source.pipe(exhaustMapWithTrailing(() => a))).toBeObservable(expected);
      m.expect(a).toHaveSubscriptions(aSubs);
    }),
  );

  it(
    'unsubscribes the running inner and the source on an early unsubscribe',
    marbles((m) => {
      const source = m.hot<string>('    -a-b-----');
      const sourceSubs = '               ^---!';
      const inners = { a: m.cold('       -----(A|)'), b: m.cold('-----(B|)') };
      const aSubs = '                  -^--!';
      const unsub = '                  ^---!';
      const expected = '                 -----';
      const result = source.pipe(exhaustMapWithTrailing((v: string) => inners[v as 'a' | 'b']));
      m.expect(result, unsub).toBeObservable(expected);
      m.expect(source).toHaveSubscriptions(sourceSubs);
      m.expect(inners.a).toHaveSubscriptions(aSubs);
      m.expect(inners.b).toHaveSubscriptions([]);
    }),
  );

  it(
    'runs exactly one trailing inner, with the latest of a burst of two that arrived meanwhile',
    marbles((m) => {
      const source = m.hot<string>('    -a-bc---|');
      const inners = {
        a: m.cold('                      -----(A|)'),
        b: m.cold('                      -----(B|)'),
        c: m.cold('                      -----(C|)'),
      };
      const aSubs = '                  -^----!';
      const cSubs = '                  ------^----!';
      const expected = '                 ------A----(C|)';
      const result = source.pipe(exhaustMapWithTrailing((v: string) => inners[v as 'a' | 'b' | 'c']));
      m.expect(result).toBeObservable(expected);
      m.expect(inners.a).toHaveSubscriptions(aSubs);
      m.expect(inners.b).toHaveSubscriptions([]);
      m.expect(inners.c).toHaveSubscriptions(cSubs);
    }),
  );

  it(
    'runs exactly one trailing inner, with the third of a burst of three',
    marbles((m) => {
      const projected: string[] = [];
      const source = m.hot<string>('    -abcd----|');
      const expected = '                 ------a----(d|)';
      const result = source.pipe(
        exhaustMapWithTrailing((v: string) => {
          projected.push(v);
          return m.cold('-----(v|)', { v });
        }),
      );
      m.expect(result).toBeObservable(expected);
      m.flush();
      expect(projected).toEqual(['a', 'd']);
    }),
  );

  it(
    'coalesces values that arrive during a trailing inner into the next trailing inner',
    marbles((m) => {
      const source = m.hot<string>('    -ab---cd----|');
      //                                  a runs 1-5, b 5-9; c and d arrive while b runs: d runs 9-13
      const expected = '                 -----a---b---(d|)';
      const result = source.pipe(exhaustMapWithTrailing((v: string) => m.cold('----(v|)', { v })));
      m.expect(result).toBeObservable(expected);
    }),
  );

  it(
    'runs separated values each in turn, with no trailing inner',
    marbles((m) => {
      const projected: string[] = [];
      const source = m.hot<string>('    -a-----b-----|');
      const expected = '                 ----a-----b--|';
      const result = source.pipe(
        exhaustMapWithTrailing((v: string) => {
          projected.push(v);
          return m.cold('---(v|)', { v });
        }),
      );
      m.expect(result).toBeObservable(expected);
      m.flush();
      expect(projected).toEqual(['a', 'b']);
    }),
  );

  it(
    'completes only after the trailing inner has completed',
    marbles((m) => {
      const source = m.hot<string>('    -ab|');
      const expected = '                 ------a----(b|)';
      const result = source.pipe(exhaustMapWithTrailing((v: string) => m.cold('-----(v|)', { v })));
      m.expect(result).toBeObservable(expected);
    }),
  );

  it(
    'emits everything an inner emits, not only its last value',
    marbles((m) => {
      const source = m.hot<string>('    -a--|');
      const expected = '                 --x-y-|';
      const result = source.pipe(exhaustMapWithTrailing(() => m.cold('-x-y-|')));
      m.expect(result).toBeObservable(expected);
    }),
  );

  it(
    'passes an error of an inner on, drops the pending value and unsubscribes the source',
    marbles((m) => {
      const source = m.hot<string>('    -a-b----');
      const sourceSubs = '               ^--!';
      const inners = { a: m.cold('       --#'), b: m.cold('-(B|)') };
      const expected = '                 ---#';
      const result = source.pipe(exhaustMapWithTrailing((v: string) => inners[v as 'a' | 'b']));
      m.expect(result).toBeObservable(expected);
      m.expect(source).toHaveSubscriptions(sourceSubs);
      m.expect(inners.b).toHaveSubscriptions([]);
    }),
  );

  it(
    'routes an error thrown by project downstream',
    marbles((m) => {
      const source = m.hot<string>('    -a-');
      const boom = new Error('boom');
      const expected = '                 -#';
      const result = source.pipe(
        exhaustMapWithTrailing(() => {
          throw boom;
        }),
      );
      m.expect(result).toBeObservable(expected, undefined, boom);
    }),
  );

  it(
    'projects nothing more once it has ended, even if a synchronous source goes on',
    marbles((m) => {
      const projected: string[] = [];
      const failure = new Error('failed');
      const result = of('a', 'b', 'c').pipe(
        exhaustMapWithTrailing((v: string) => {
          projected.push(v);
          throw failure;
        }),
      );
      m.expect(result).toBeObservable('#', undefined, failure);
      m.flush();
      expect(projected).toEqual(['a']);
    }),
  );

  it(
    'keeps its state per subscription: two subscribers do not share the running inner',
    marbles((m) => {
      const source = m.cold<string>('   -a-b|');
      const result = source.pipe(exhaustMapWithTrailing((v: string) => m.cold('---(v|)', { v })));
      const expected = '                 ----a--(b|)';
      m.expect(result).toBeObservable(expected);
      m.expect(result).toBeObservable(expected);
    }),
  );

  it(
    'keeps its state per subscription: a late subscriber starts from scratch',
    marbles((m) => {
      const source = m.hot<string>('    -a--b-----|');
      const result = source.pipe(exhaustMapWithTrailing((v: string) => m.cold('----(v|)', { v })));
      const first = '                   -----a---b|';
      const second = '                  --------b-|';
      const secondSub = '               ---^';
      m.expect(result).toBeObservable(first);
      m.expect(result, secondSub).toBeObservable(second);
    }),
  );

  it(
    'handles inners that complete synchronously',
    marbles((m) => {
      const source = m.hot<string>('    -a-b-c|');
      const expected = '                 -A-B-C|';
      const result = source.pipe(exhaustMapWithTrailing((v: string) => of(v.toUpperCase())));
      m.expect(result).toBeObservable(expected);
    }),
  );

  it(
    'passes the number of the projection as index',
    marbles((m) => {
      const indexes: number[] = [];
      const source = m.hot<string>('    -abc-----d---|');
      const result = source.pipe(
        exhaustMapWithTrailing((v: string, i) => {
          indexes.push(i);
          return m.cold('---(v|)', { v });
        }),
      );
      m.expect(result).toBeObservable('----a--c----d|');
      m.flush();
      expect(indexes).toEqual([0, 1, 2]);
    }),
  );
});

// The auditMap matrix (rxjs-etc): each inner takes 2 frames and emits its value as it ends.
// Unlike auditMap, every inner's values are emitted, not only those of the last one.
interface MatrixCase {
  source: string;
  expected: string;
}

cases<MatrixCase>(
  'exhaustMapWithTrailing (auditMap matrix)',
  (m, c) => {
    const result = m.hot<string>(c.source).pipe(exhaustMapWithTrailing((v: string) => m.cold('--(v|)', { v })));
    m.expect(result).toBeObservable(c.expected);
  },
  {
    'emits an isolated value': { source: '--a-------', expected: '----a-----' },
    'runs the last of two as the trailing inner': { source: '--ab------', expected: '----a-b---' },
    'runs the last of three as the trailing inner': { source: '--abc-----', expected: '----a-c---' },
    'runs separated values each': { source: '--a---b---', expected: '----a---b-' },
  },
);
