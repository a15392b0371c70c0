import { defer, EMPTY, finalize, map, merge, NEVER, Subject, timer } from 'rxjs';
import { describe, it } from 'vitest';
import { settleOnActivity, type ReadActivity } from '../../src/operators/settleOnActivity.js';
import { cases, marbles, type Context } from './marbles.js';

/** c: a watcher saw a change; s, e: a read starts, ends. */
const ACTIVITY: Record<string, ReadActivity> = { c: 'change', s: 'start', e: 'end' };

/** `source` piped through settleOnActivity(10) with `activity` as its activity. */
function settled(m: Context, activity: string, source: string, options?: { firstAtOnce?: boolean }) {
  // The source is made first: within one frame a read's value comes before its `end`, as in the
  // pipeline (the value goes downstream synchronously, the `end` when the read is torn down).
  const values = m.hot(source);
  return values.pipe(settleOnActivity(m.hot<ReadActivity>(activity, ACTIVITY), 10, m.scheduler, options));
}

describe('settleOnActivity with firstAtOnce (decision 220)', () => {
  const atOnce = { firstAtOnce: true };

  it(
    'emits the first value when its read ends, without a window; the next one settles',
    marbles((m) => {
      const activity = ' (cs)-e----(cs)-e-------';
      const source = '   ----a--------b---------';
      const expected = ' -----a--------------b--';
      m.expect(settled(m, activity, source, atOnce)).toBeObservable(expected);
    }),
  );

  it(
    'waits for every read running when the first value arrives, and emits it when the last ends',
    marbles((m) => {
      const activity = ' (cs)s-e---e------';
      const source = '   ----a-------------';
      const expected = ' ----------a-------';
      m.expect(settled(m, activity, source, atOnce)).toBeObservable(expected);
    }),
  );

  it(
    'a change while the first value waits for a read opens no window, whatever follows',
    marbles((m) => {
      // Alone, and with a second value before the read ends: the first goes out at the end alike.
      m.expect(settled(m, ' (cs)s-e-c-e--------', '   ----a-------------', atOnce)).toBeObservable(' ----------a--------');
      m.expect(settled(m, ' (cs)s-e-c-e--------', '   ----a---b---------', atOnce)).toBeObservable(' ----------b--------');
    }),
  );

  it(
    'a value arriving with no read running goes out at once the first time, settled after',
    marbles((m) => {
      const activity = ' -------------------';
      const source = '   a--b---------------';
      const expected = ' a------------b-----';
      m.expect(settled(m, activity, source, atOnce)).toBeObservable(expected);
    }),
  );
});

describe('settleOnActivity', () => {
  it(
    'emits nothing and completes for an empty source',
    marbles((m) => {
      m.expect(m.cold('|').pipe(settleOnActivity(EMPTY, 10, m.scheduler))).toBeObservable('|');
    }),
  );

  it(
    'never emits for a never source',
    marbles((m) => {
      m.expect(m.cold('-').pipe(settleOnActivity(NEVER, 10, m.scheduler))).toBeObservable('-');
    }),
  );

  it(
    'opens the window at the first change: a read ending inside it does not extend it',
    marbles((m) => {
      const activity = ' (cs)-e----------';
      const source = '   ----a-----------';
      const expected = ' ----------a------';
      m.expect(settled(m, activity, source)).toBeObservable(expected);
    }),
  );

  it(
    'restarts the window at each change, and emits the latest value when it closes',
    marbles((m) => {
      const activity = ' (cs)-e--(cs)--e-----';
      const source = '   ----a--------b------';
      const expected = ' ------------------b-';
      m.expect(settled(m, activity, source)).toBeObservable(expected);
    }),
  );

  it(
    'with a read still running when the window closes, emits as soon as it ends, without a new window',
    marbles((m) => {
      const activity = ' (cs)-----------e--';
      const source = '   --------------a---';
      const expected = ' ---------------a--';
      m.expect(settled(m, activity, source)).toBeObservable(expected);
    }),
  );

  it(
    'waits for the last of the reads running at the close, then emits the latest value',
    marbles((m) => {
      const activity = ' (cs)(cs)--------e---e-';
      const source = '   ---------------a---b--';
      const expected = ' --------------------b--';
      m.expect(settled(m, activity, source)).toBeObservable(expected);
    }),
  );

  it(
    'a change while it waits for a read opens a new window: the read ending then emits nothing',
    marbles((m) => {
      const activity = ' (cs)--------c--e----------';
      const source = '   ---------------a----------';
      // Waiting since 10; the change at 12 opens a window, which closes at 22.
      const expected = ' ----------------------a---';
      m.expect(settled(m, activity, source)).toBeObservable(expected);
    }),
  );

  it(
    'turns a burst of 50 saves (a change and a read each) into one emission of the last content, dueTime after the last change',
    marbles((m) => {
      const saves = 50;
      // Each save: a change and a read start, the content 2 frames later, the read's end 1 frame after.
      const activity = Array.from({ length: saves }, () => '(cs)-e').join('-');
      const names = Array.from({ length: saves }, (_, i) => `v${i}`);
      const values = Object.fromEntries(names.map((name, i) => [String.fromCharCode(0x100 + i), name]));
      const source = Object.keys(values)
        .map((frame) => `----${frame}-`)
        .join('-');
      const lastChange = (saves - 1) * 7;
      const expected = `${lastChange + 10}ms x`;
      const result = m.hot(source, values).pipe(settleOnActivity(m.hot<ReadActivity>(activity, ACTIVITY), 10, m.scheduler));
      m.expect(result).toBeObservable(expected, { x: `v${saves - 1}` });
    }),
  );

  it(
    'closes the window silently when the reads found nothing new',
    marbles((m) => {
      const activity = ' (cs)-e-------(cs)-e---------';
      const source = '   a-------------------------';
      const expected = ' ----------a-----------------';
      m.expect(settled(m, activity, source)).toBeObservable(expected);
    }),
  );

  it(
    'a value that comes with no read running is a change of its own (a session server): it restarts the window',
    marbles((m) => {
      const activity = ' (cs)-e-------------';
      const source = '   ----a--b------------';
      const expected = ' -----------------b--';
      m.expect(settled(m, activity, source)).toBeObservable(expected);
    }),
  );

  it(
    'a read that was no change (a check) but found one opens a window when its value comes',
    marbles((m) => {
      const activity = ' s--e---------------';
      const source = '   --a----------------';
      const expected = ' ------------a------';
      m.expect(settled(m, activity, source)).toBeObservable(expected);
    }),
  );

  it(
    'emits the pending value at once when the source completes',
    marbles((m) => {
      const activity = ' (cs)-e----';
      const source = '   ----a-|';
      const expected = ' ------(a|)';
      m.expect(settled(m, activity, source)).toBeObservable(expected);
    }),
  );

  it(
    'passes an error of the source on at once, dropping the pending value',
    marbles((m) => {
      const activity = ' (cs)-e----';
      const source = m.hot('----a-#');
      const subs = '        ^-----!';
      const expected = '    ------#';
      m.expect(source.pipe(settleOnActivity(m.hot<ReadActivity>(activity, ACTIVITY), 10, m.scheduler))).toBeObservable(expected);
      m.expect(source).toHaveSubscriptions(subs);
    }),
  );

  it(
    'passes an error of the activity on, and unsubscribes from the source',
    marbles((m) => {
      const source = m.hot('   ----a------');
      const activity = m.hot<ReadActivity>('(cs)-#', ACTIVITY);
      const subs = '           ^----!';
      const expected = '       -----#';
      m.expect(source.pipe(settleOnActivity(activity, 10, m.scheduler))).toBeObservable(expected);
      m.expect(source).toHaveSubscriptions(subs);
      m.expect(activity).toHaveSubscriptions(subs);
    }),
  );

  it(
    'emits nothing after an early unsubscribe and unsubscribes from both streams',
    marbles((m) => {
      const source = m.hot('   ----a--------');
      const activity = m.hot<ReadActivity>('(cs)-e---------', ACTIVITY);
      const unsub = '          ^------!';
      const subs = '           ^------!';
      m.expect(source.pipe(settleOnActivity(activity, 10, m.scheduler)), unsub).toBeObservable('--------');
      m.expect(source).toHaveSubscriptions(subs);
      m.expect(activity).toHaveSubscriptions(subs);
    }),
  );

  it(
    'subscribes the activity before the source, so it hears the change and read the source starts at subscription',
    marbles((m) => {
      const activity = new Subject<ReadActivity>();
      // Like a watched file: a change and a read at subscription, its content 4 frames later.
      const source = defer(() => {
        activity.next('change');
        activity.next('start');
        const read = timer(4, m.scheduler).pipe(
          map(() => 'a'),
          finalize(() => activity.next('end')),
        );
        return merge(read, NEVER);
      });
      m.expect(source.pipe(settleOnActivity(activity, 10, m.scheduler))).toBeObservable('----------a');
    }),
  );
});

// With no activity it is `settle`: the auditMap matrix (rxjs-etc) with a due time of 2 frames.
interface BurstCase {
  source: string;
  expected: string;
}

cases<BurstCase>(
  'settleOnActivity without activity (burst matrix, dueTime 2)',
  (m, c) => {
    m.expect(m.hot(c.source).pipe(settleOnActivity(NEVER, 2, m.scheduler))).toBeObservable(c.expected);
  },
  {
    'emits an isolated value': { source: '--a-------', expected: '----a-----' },
    'emits the last of a burst of two': { source: '--ab------', expected: '-----b----' },
    'emits the last of a burst of three': { source: '--abc-----', expected: '------c---' },
    'emits separated values': { source: '--a---b---', expected: '----a---b-' },
  },
);
