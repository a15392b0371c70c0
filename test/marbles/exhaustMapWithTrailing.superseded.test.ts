import { NEVER, concat, delay, of, takeUntil, type Observable } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { exhaustMapWithTrailing } from '../../src/operators/exhaustMapWithTrailing.js';
import { marbles } from './marbles.js';

/** An inner that stops waiting when a newer value arrives, then reports (like a reconcile pass). */
const windDown =
  (inners: Record<string, Observable<string>>) =>
  (v: string, _i: number, superseded$: Observable<void>) =>
    concat(inners[v]!.pipe(takeUntil(superseded$)), of(v));

/** Whether a notifier has emitted (it replays to a late subscriber), counting its emissions. */
function heard(superseded$: Observable<void>): boolean {
  let count = 0;
  superseded$.subscribe(() => (count += 1)).unsubscribe();
  if (count > 1) throw new Error('emitted more than once');
  return count === 1;
}

describe('exhaustMapWithTrailing: superseded$', () => {
  it(
    'tells the running inner when a newer value arrives; the trailing inner starts once it wound down',
    marbles((m) => {
      const source = m.hot<string>('    -a--b------|');
      const inners = { a: m.cold('       ------A|'), b: m.cold('---B|') };
      const aSubs = '                  -^--!';
      const bSubs = '                  ----^---!';
      const expected = '                 ----a--Bb--|';
      m.expect(source.pipe(exhaustMapWithTrailing(windDown(inners)))).toBeObservable(expected);
      m.expect(inners.a).toHaveSubscriptions(aSubs);
      m.expect(inners.b).toHaveSubscriptions(bSubs);
    }),
  );

  it(
    'never emits for an inner that completes before a newer value arrives',
    marbles((m) => {
      const notifiers: Observable<void>[] = [];
      const source = m.hot<string>('    -a------b--|');
      const result = source.pipe(
        exhaustMapWithTrailing((v: string, _i, superseded$) => {
          notifiers.push(superseded$);
          return m.cold('--(v|)', { v });
        }),
      );
      m.expect(result).toBeObservable('---a------b|');
      m.flush();
      expect(notifiers.map(heard)).toEqual([false, false]);
    }),
  );

  it(
    'tells only the running inner, once, however many values arrive meanwhile; the latest runs next',
    marbles((m) => {
      const notifiers: Observable<void>[] = [];
      const projected: string[] = [];
      const source = m.hot<string>('    -a-bcd-------|');
      const result = source.pipe(
        exhaustMapWithTrailing((v: string, _i, superseded$) => {
          projected.push(v);
          notifiers.push(superseded$);
          // Winding down takes 5 frames here: c and d arrive meanwhile.
          return concat(m.cold('--------|').pipe(takeUntil(superseded$.pipe(delay(5, m.scheduler)))), of(v));
        }),
      );
      m.expect(result).toBeObservable('--------a-------(d|)');
      m.flush();
      expect(projected).toEqual(['a', 'd']);
      expect(notifiers.map(heard)).toEqual([true, false]);
    }),
  );

  it(
    'replays to a late listener: an inner that subscribes after the newer value still hears it',
    marbles((m) => {
      const source = m.hot<string>('    -ab-------|');
      const result = source.pipe(
        exhaustMapWithTrailing((v: string, _i, superseded$) =>
          // a listens only 3 frames after it started, when b has arrived already.
          v === 'a' ? concat(m.cold('---|'), NEVER.pipe(takeUntil(superseded$)), of(v)) : of(v),
        ),
      );
      m.expect(result).toBeObservable('----(ab)--|');
    }),
  );

  it(
    'is the same operator without it: an inner that ignores superseded$ is waited for as before',
    marbles((m) => {
      const source = m.hot<string>('    -a-b---|');
      const expected = '                 ------a----(b|)';
      m.expect(source.pipe(exhaustMapWithTrailing((v: string) => m.cold('-----(v|)', { v })))).toBeObservable(expected);
    }),
  );
});
