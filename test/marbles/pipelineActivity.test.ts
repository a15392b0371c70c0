import type { TestScheduler } from 'rxjs/testing';
import type { Observable } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { AssembleInput } from '../../src/model/settings/assemble.js';
import type { ReconcileEvent } from '../../src/model/report/events.js';
import type { ReadActivity } from '../../src/operators/settleOnActivity.js';
import { createReconciler } from '../../src/live/reconciler.js';
import { fakeConnector } from './fakeConnector.js';
import { input, newScheduler, observe, srv } from './inputs.js';

/** c: a watcher saw a change; s, e: a read starts, ends. */
const ACTIVITY: Record<string, ReadActivity> = { c: 'change', s: 'start', e: 'end' };

/** A reconciler on `inputs$` whose debounce (300 ms) is timed from `activity$`. */
function harness(ts: TestScheduler, inputs$: Observable<AssembleInput>, activity$: Observable<ReadActivity>) {
  const fake = fakeConnector(ts);
  const seen = observe(createReconciler(inputs$, { connector: fake.connector, scheduler: ts, env: {}, random: () => 0.5, activity$ }));
  const passes = () => seen.events.filter((e): e is ReconcileEvent => e.type === 'reconcile');
  /** When NAME first started connecting (virtual ms). */
  const connecting = (name: string) => seen.events.find((e) => e.type === 'server' && e.name === name && e.state === 'connecting')?.ts;
  return { fake, ...seen, passes, connecting };
}

describe('reconcile pipeline: the debounce is timed from the watchers (decision 105)', () => {
  // At start every source reads at subscription (a change and a read at 0, the inputs at 10).
  const START = { inputs: '10ms a', activity: '(cs) 6ms e' };

  it('a save: the pass starts 300 ms after the watcher saw it, not 300 ms after its read came back', () => {
    const ts = newScheduler();
    ts.run(({ hot, flush }) => {
      // Inputs first: within a frame a read's value comes before its end.
      const inputs$ = hot(`${START.inputs} 989ms 15ms b`, { a: input({ s1: srv() }), b: input({ s1: srv(), s2: srv() }) });
      const activity$ = hot<ReadActivity>(`${START.activity} 989ms (cs) 11ms e`, ACTIVITY);
      const h = harness(ts, inputs$, activity$);
      flush();
      expect(h.passes().map((p) => p.trigger)).toEqual(['initial', 'watch']);
      // The initial pass goes out as the first reads end (decision 220); the save's waits its window.
      expect(h.connecting('s1')).toBe(10);
      expect(h.connecting('s2')).toBe(1000 + 300);
    });
  });

  it('a read still running when the window closes: the pass starts as soon as it ends', () => {
    const ts = newScheduler();
    ts.run(({ hot, flush }) => {
      const inputs$ = hot(`${START.inputs} 989ms 350ms b`, { a: input({ s1: srv() }), b: input({ s1: srv(), s2: srv() }) });
      const activity$ = hot<ReadActivity>(`${START.activity} 989ms (cs) 346ms e`, ACTIVITY);
      const h = harness(ts, inputs$, activity$);
      flush();
      expect(h.connecting('s2')).toBe(1000 + 350);
      expect(h.passes()).toHaveLength(2);
    });
  });

  it('a burst of 50 saves within 2 s makes one pass, with the content of the last save', () => {
    const ts = newScheduler();
    ts.run(({ hot, flush }) => {
      // A save every 40 ms from 1000 on, each read taking 10 ms and finding the servers s0 … sI.
      const saves = 50;
      const inputs: Record<string, AssembleInput> = { a: input({}) };
      const frames = Array.from({ length: saves }, (_, i) => String.fromCharCode(0x100 + i));
      frames.forEach((frame, i) => {
        inputs[frame] = input(Object.fromEntries(Array.from({ length: i + 1 }, (_, k) => [`s${k}`, srv()])));
      });
      const inputs$ = hot(`${START.inputs} 999ms ${frames.join(' 39ms ')}`, inputs);
      const activity$ = hot<ReadActivity>(`${START.activity} 989ms ${frames.map(() => '(cs) 6ms e').join(' 29ms ')}`, ACTIVITY);
      const h = harness(ts, inputs$, activity$);
      flush();
      const lastSave = 1000 + (saves - 1) * 40;
      expect(h.passes().map((p) => [p.trigger, p.added.length])).toEqual([
        ['initial', 0],
        ['watch', saves],
      ]);
      // The pass starts then (its 50 connects take 8 slots, so the last of them starts later).
      expect(h.connecting('s0')).toBe(lastSave + 300);
    });
  });

  it('a manual reload inside the window passes at once with the latest inputs; the window then closes without a pass', () => {
    const ts = newScheduler();
    ts.run(({ hot, cold, flush }) => {
      const inputs$ = hot(`${START.inputs} 989ms 15ms b`, { a: input({ s1: srv() }), b: input({ s1: srv(), s2: srv() }) });
      const activity$ = hot<ReadActivity>(`${START.activity} 989ms (cs) 11ms e`, ACTIVITY);
      const h = harness(ts, inputs$, activity$);
      cold('1100ms r').subscribe(() => h.r.reload());
      flush();
      expect(h.passes().map((p) => p.trigger)).toEqual(['initial', 'reload']);
      expect(h.connecting('s2')).toBe(1100);
    });
  });

  it('the first pass waits until every source has its first value and its reads ended, then goes out at once', () => {
    const ts = newScheduler();
    ts.run(({ hot, flush }) => {
      // The files were read by 10, but one source (say, a host's stream) gives its first value at
      // 500, while a read (a watcher's check, no change) runs from 480 to 520. A save at 1000 follows.
      const inputs$ = hot('500ms a 509ms b', { a: input({ s1: srv() }), b: input({ s1: srv(), s2: srv() }) });
      const activity$ = hot<ReadActivity>(`${START.activity} 469ms s 39ms e 479ms (cs) 6ms e`, ACTIVITY);
      const h = harness(ts, inputs$, activity$);
      // Nothing before the last source's first value, nor while the read running then goes on.
      const before: [number, string[]][] = [];
      for (const at of [499, 519]) ts.schedule(() => before.push([at, h.events.map((e) => e.type)]), at);
      flush();
      expect(before).toEqual([
        [499, []],
        [519, []],
      ]);
      // The first pass as that read ends (decision 220): not when the value came (500), nor a window after it (800).
      expect(h.connecting('s1')).toBe(520);
      // A change afterwards settles as before: the pass 300 ms after the watcher saw it.
      expect(h.passes().map((p) => p.trigger)).toEqual(['initial', 'watch']);
      expect(h.connecting('s2')).toBe(1000 + 300);
    });
  });

  it('a change reported while the first reads run does not delay the first pass; the next value waits its window', () => {
    const ts = newScheduler();
    ts.run(({ hot, flush }) => {
      // A save at 5, while the first read (0 to 10) runs: the watcher reports it, and the trailing
      // read it causes starts as the first one ends (10) and brings the saved content at 20.
      // Then another save at 100, read by 110.
      const inputs$ = hot('10ms a 9ms b 89ms c', {
        a: input({ s1: srv() }),
        b: input({ s1: srv(), s2: srv() }),
        c: input({ s1: srv(), s2: srv(), s3: srv() }),
      });
      const activity$ = hot<ReadActivity>('(cs) 1ms c 4ms (se) 6ms e 79ms (cs) 6ms e', ACTIVITY);
      const h = harness(ts, inputs$, activity$);
      flush();
      expect(h.passes().map((p) => [p.trigger, p.added])).toEqual([
        ['initial', ['s1', 's2']],
        ['watch', ['s3']],
      ]);
      // The first pass as the reads end (decision 220), not 300 ms after the change at 5 (305) …
      expect(h.connecting('s1')).toBe(20);
      // … and the next value waits its window: 300 ms after the change at 100.
      expect(h.connecting('s3')).toBe(100 + 300);
    });
  });
});
