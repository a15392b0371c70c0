import { Subject, from, queueScheduler } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { yieldEvery } from '../../src/operators/yieldEvery.js';
import { newScheduler } from './inputs.js';
import { marbles } from './marbles.js';

describe('yieldEvery (decision 174)', () => {
  it(
    'completes for an empty source',
    marbles((m) => {
      m.expect(m.cold('|').pipe(yieldEvery(2, m.scheduler))).toBeObservable('|');
    }),
  );

  it(
    'never emits for a never source',
    marbles((m) => {
      m.expect(m.cold('-').pipe(yieldEvery(2, m.scheduler))).toBeObservable('-');
    }),
  );

  it(
    'passes an error on',
    marbles((m) => {
      m.expect(m.cold('a-#').pipe(yieldEvery(2, m.scheduler))).toBeObservable('a-#');
    }),
  );

  it(
    'keeps values and their frames; spread-out values pass straight through',
    marbles((m) => {
      m.expect(m.cold('(abcde|)').pipe(yieldEvery(2, m.scheduler))).toBeObservable('(abcde|)');
      m.expect(m.cold('a-b-c-|').pipe(yieldEvery(1, m.scheduler))).toBeObservable('a-b-c-|');
    }),
  );

  it(
    'tears down on an early unsubscribe',
    marbles((m) => {
      const source = m.cold('a-b-c');
      m.expect(source.pipe(yieldEvery(2, m.scheduler)), '^--!').toBeObservable('a-b');
      m.expect(source).toHaveSubscriptions('^--!');
    }),
  );

  it('a burst goes on in later scheduler tasks, `count` values each, in order', () => {
    const ts = newScheduler();
    const seen: string[] = [];
    let completed = false;
    from(['a', 'b', 'c', 'd', 'e'])
      .pipe(yieldEvery(2, ts))
      .subscribe({ next: (v) => seen.push(v), complete: () => (completed = true) });
    // Synchronously: the first two only; the others wait for the scheduler.
    expect(seen).toEqual(['a', 'b']);
    expect(completed).toBe(false);
    ts.flush();
    expect(seen).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(completed).toBe(true);
  });

  it('a value arriving while others wait queues behind them; a synchronous scheduler loses nothing', () => {
    const ts = newScheduler();
    const source = new Subject<number>();
    const seen: number[] = [];
    source.pipe(yieldEvery(1, ts)).subscribe((v) => seen.push(v));
    source.next(1);
    source.next(2);
    source.next(3);
    expect(seen).toEqual([1]);
    ts.flush();
    expect(seen).toEqual([1, 2, 3]);
    const sync: number[] = [];
    from([1, 2, 3, 4]).pipe(yieldEvery(1, queueScheduler)).subscribe((v) => sync.push(v));
    expect(sync).toEqual([1, 2, 3, 4]);
  });
});
