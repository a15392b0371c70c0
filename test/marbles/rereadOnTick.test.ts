import { describe, expect, it } from 'vitest';
import type { ReadActivity } from '../../src/operators/settleOnActivity.js';
import { rereadOnTick } from '../../src/streams/rereadOnTick.js';
import type { WatchTick } from '../../src/streams/watchDirectory.js';
import { marbles, type Context } from './marbles.js';

const TICKS: Record<string, WatchTick> = { c: 'change', k: 'check' };

/** rereadOnTick over `ticks`, each read being `read`; `log` gets `activity@frame`. */
function rereads(m: Context, ticks: string, read: string) {
  const log: string[] = [];
  /** Each read's cold observable, for its subscription frames. */
  const reads: { subscriptions: { subscribedFrame: number; unsubscribedFrame: number }[] }[] = [];
  const result = m.hot<WatchTick>(ticks, TICKS).pipe(
    rereadOnTick(
      () => {
        const one = m.cold(read);
        reads.push(one);
        return one;
      },
      (activity: ReadActivity) => log.push(`${activity}@${m.scheduler.now()}`),
    ),
  );
  return { result, log, reads };
}

describe('rereadOnTick', () => {
  it(
    'reads at the tick, one read at a time, and at most once more for the ticks during a read',
    marbles((m) => {
      const { result, log, reads } = rereads(m, 'c--cc------c----', '----(R|)');
      m.expect(result).toBeObservable('          ----R---R------R-');
      m.flush();
      expect(reads).toHaveLength(3);
      expect(reads.map((r) => r.subscriptions.map((s) => [s.subscribedFrame, s.unsubscribedFrame]))).toEqual([
        [[0, 4]],
        [[4, 8]],
        [[11, 15]],
      ]);
      // The trailing read starts before the first one ends: the count of running reads stays above 0.
      expect(log).toEqual(['change@0', 'start@0', 'change@3', 'change@4', 'start@4', 'end@4', 'end@8', 'change@11', 'start@11', 'end@15']);
    }),
  );

  it(
    'a check reads like a change but reports no change',
    marbles((m) => {
      const { result, log } = rereads(m, 'ck------', '--(R|)');
      m.expect(result).toBeObservable('   --R-R--');
      m.flush();
      expect(log).toEqual(['change@0', 'start@0', 'start@2', 'end@2', 'end@4']);
    }),
  );

  it(
    'reports the end of a read cut short by an unsubscribe, so no read stays counted',
    marbles((m) => {
      const { result, log, reads } = rereads(m, 'c-------', '----(R|)');
      m.expect(result, '^-!').toBeObservable('---');
      m.flush();
      expect(reads[0]!.subscriptions.map((s) => [s.subscribedFrame, s.unsubscribedFrame])).toEqual([[0, 2]]);
      expect(log).toEqual(['change@0', 'start@0', 'end@2']);
    }),
  );

  it(
    'passes a failed read on as an error, after reporting its end',
    marbles((m) => {
      const { result, log } = rereads(m, 'c-------', '--#');
      m.expect(result).toBeObservable('--#');
      m.flush();
      expect(log).toEqual(['change@0', 'start@0', 'end@2']);
    }),
  );
});
