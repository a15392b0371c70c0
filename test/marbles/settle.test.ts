import { concat, NEVER, of, VirtualTimeScheduler } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { settle } from '../../src/operators/settle.js';
import { cases, marbles } from './marbles.js';

describe('settle', () => {
  it(
    'emits nothing and completes for an empty source',
    marbles((m) => {
      const source = m.cold('    |');
      const expected = '         |';
      m.expect(source.pipe(settle(300, m.scheduler))).toBeObservable(expected);
    }),
  );

  it(
    'never emits for a never source',
    marbles((m) => {
      const source = m.cold('    -');
      const expected = '         -';
      m.expect(source.pipe(settle(300, m.scheduler))).toBeObservable(expected);
    }),
  );

  it(
    'passes an error on at once, dropping the pending value',
    marbles((m) => {
      const source = m.hot('     -a-#');
      const subs = '             ^--!';
      const expected = '         ---#';
      m.expect(source.pipe(settle(300, m.scheduler))).toBeObservable(expected);
      m.expect(source).toHaveSubscriptions(subs);
    }),
  );

  it(
    'emits the pending value at once when the source completes',
    marbles((m) => {
      const source = m.hot('     -a-|');
      const expected = '         ---(a|)';
      m.expect(source.pipe(settle(300, m.scheduler))).toBeObservable(expected);
    }),
  );

  it(
    'emits nothing after an early unsubscribe and unsubscribes from the source',
    marbles((m) => {
      const source = m.hot('     -a-- 296ms b');
      const unsub = '            ^--!';
      const subs = '             ^--!';
      const expected = '         ----';
      m.expect(source.pipe(settle(300, m.scheduler)), unsub).toBeObservable(expected);
      m.expect(source).toHaveSubscriptions(subs);
    }),
  );

  it(
    'turns five values within 300 ms into one emission, the last, 300 ms after it',
    marbles((m) => {
      const source = m.hot('     a 49ms b 49ms c 49ms d 49ms e 499ms |');
      const expected = '         500ms e 199ms |';
      m.expect(source.pipe(settle(300, m.scheduler))).toBeObservable(expected);
    }),
  );

  it(
    'turns two bursts 400 ms apart into two emissions',
    marbles((m) => {
      const source = m.hot('     ab 398ms cd 798ms |');
      const expected = '         301ms b 399ms d 498ms |';
      m.expect(source.pipe(settle(300, m.scheduler))).toBeObservable(expected);
    }),
  );

  it('waits on the scheduler it is given', () => {
    // Outside TestScheduler.run(), asyncScheduler is real time: only the given scheduler can
    // release the value on flush().
    const scheduler = new VirtualTimeScheduler();
    const seen: string[] = [];
    const subscription = concat(of('a', 'b'), NEVER)
      .pipe(settle(300, scheduler))
      .subscribe((v) => seen.push(v));
    expect(seen).toEqual([]);
    scheduler.flush();
    expect(seen).toEqual(['b']);
    expect(scheduler.now()).toBe(300);
    subscription.unsubscribe();
  });

  it(
    'waits 300 ms by default (asyncScheduler is virtual inside the marble run)',
    marbles((m) => {
      const source = m.hot('     a 999ms |');
      const expected = '         300ms a 699ms |';
      m.expect(source.pipe(settle())).toBeObservable(expected);
    }),
  );
});

// The auditMap matrix (rxjs-etc) with a due time of 2 frames: what each burst settles into.
interface BurstCase {
  source: string;
  expected: string;
}

cases<BurstCase>(
  'settle (burst matrix, dueTime 2)',
  (m, c) => {
    m.expect(m.hot(c.source).pipe(settle(2, m.scheduler))).toBeObservable(c.expected);
  },
  {
    'emits an isolated value': { source: '--a-------', expected: '----a-----' },
    'emits the last of a burst of two': { source: '--ab------', expected: '-----b----' },
    'emits the last of a burst of three': { source: '--abc-----', expected: '------c---' },
    'emits separated values': { source: '--a---b---', expected: '----a---b-' },
  },
);
