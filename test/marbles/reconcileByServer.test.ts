import { from, of, tap, type Observable } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { reconcileByServer, type ServerTask } from '../../src/operators/reconcileByServer.js';
import { marbles, type Context } from './marbles.js';

/** A task of server `name` whose action is the given cold observable; records when it starts. */
function task(m: Context, name: string, action: Observable<string>, started: string[] = []): ServerTask<string> {
  return {
    name,
    run: () => {
      started.push(`${name}@${m.scheduler.now()}`);
      return action;
    },
  };
}

describe('reconcileByServer', () => {
  it(
    'completes for an empty source',
    marbles((m) => {
      const source = m.cold<ServerTask<string>>('|');
      m.expect(source.pipe(reconcileByServer())).toBeObservable('|');
    }),
  );

  it(
    'never emits for a never source',
    marbles((m) => {
      const source = m.cold<ServerTask<string>>('-');
      m.expect(source.pipe(reconcileByServer())).toBeObservable('-');
    }),
  );

  it(
    'passes an error of the source on and tears down the running tasks',
    marbles((m) => {
      const a = m.cold('                 -----(A|)');
      const aSubs = '                    -^-!';
      const source = m.hot('              -a-#', { a: task(m, 'a', a) });
      const expected = '                  ---#';
      m.expect(source.pipe(reconcileByServer())).toBeObservable(expected);
      m.expect(a).toHaveSubscriptions(aSubs);
    }),
  );

  it(
    'tears down the running tasks on an early unsubscribe',
    marbles((m) => {
      const a = m.cold('                 -----(A|)');
      const b = m.cold('                 --B--(C|)');
      const aSubs = '                    ^---!';
      const bSubs = '                    ^---!';
      const unsub = '                    ^---!';
      const source = m.cold('             (ab|)', { a: task(m, 'a', a), b: task(m, 'b', b) });
      const expected = '                  --B-';
      m.expect(source.pipe(reconcileByServer()), unsub).toBeObservable(expected);
      m.expect(a).toHaveSubscriptions(aSubs);
      m.expect(b).toHaveSubscriptions(bSubs);
    }),
  );

  it(
    "starts a server's second task only after its first completed, while another server's slow task overlaps",
    marbles((m) => {
      const started: string[] = [];
      const disconnectA = m.cold('       ---(d|)');
      const connectA = m.cold('          ---(c|)');
      const slowB = m.cold('             ----------(s|)');
      const source = m.cold('             (xsy|)', {
        x: task(m, 'a', disconnectA, started),
        s: task(m, 'b', slowB, started),
        y: task(m, 'a', connectA, started),
      });
      const dSubs = '                    ^--!';
      const cSubs = '                    ---^--!';
      const sSubs = '                    ^---------!';
      const expected = '                  ---d--c---(s|)';
      m.expect(source.pipe(reconcileByServer())).toBeObservable(expected);
      m.expect(disconnectA).toHaveSubscriptions(dSubs);
      m.expect(connectA).toHaveSubscriptions(cSubs);
      m.expect(slowB).toHaveSubscriptions(sSubs);
      m.flush();
      expect(started).toEqual(['a@0', 'b@0', 'a@3']);
    }),
  );

  it(
    'runs the tasks of different servers in parallel',
    marbles((m) => {
      const a = m.cold('                 ---(A|)');
      const b = m.cold('                 ----(B|)');
      const c = m.cold('                 --(C|)');
      const source = m.cold('             (abc|)', { a: task(m, 'a', a), b: task(m, 'b', b), c: task(m, 'c', c) });
      const expected = '                  --CA(B|)';
      m.expect(source.pipe(reconcileByServer())).toBeObservable(expected);
      m.expect(a).toHaveSubscriptions('   ^--!');
      m.expect(b).toHaveSubscriptions('   ^---!');
      m.expect(c).toHaveSubscriptions('   ^-!');
    }),
  );

  it(
    'runs at most `concurrency` servers at once: with 2, the third starts when one finishes',
    marbles((m) => {
      const a = m.cold('                 -----(A|)');
      const b = m.cold('                 ---(B|)');
      const c = m.cold('                 ---(C|)');
      const source = m.cold('             (abc|)', { a: task(m, 'a', a), b: task(m, 'b', b), c: task(m, 'c', c) });
      const expected = '                  ---B-A(C|)';
      m.expect(source.pipe(reconcileByServer(2))).toBeObservable(expected);
      m.expect(a).toHaveSubscriptions('   ^----!');
      m.expect(b).toHaveSubscriptions('   ^--!');
      m.expect(c).toHaveSubscriptions('   ---^--!');
    }),
  );

  it(
    'keeps a server in its slot until its last task has finished',
    marbles((m) => {
      // concurrency 2: a has two tasks (0-2, 2-4), b one (0-5); c waits for a, not for a's first task.
      const a1 = m.cold('                --(x|)');
      const a2 = m.cold('                --(y|)');
      const b = m.cold('                 -----(B|)');
      const c = m.cold('                 -(C|)');
      const source = m.cold('             (pbqc|)', {
        p: task(m, 'a', a1),
        b: task(m, 'b', b),
        q: task(m, 'a', a2),
        c: task(m, 'c', c),
      });
      const expected = '                  --x-y(BC|)';
      m.expect(source.pipe(reconcileByServer(2))).toBeObservable(expected);
      m.expect(c).toHaveSubscriptions('   ----^!');
    }),
  );

  it(
    'loses no task of a server that waited for a slot',
    marbles((m) => {
      const a1 = m.cold('                -(w|)');
      const b1 = m.cold('                -(x|)');
      const a2 = m.cold('                -(y|)');
      const b2 = m.cold('                -(z|)');
      const source = m.cold('             (pqrs|)', {
        p: task(m, 'a', a1),
        q: task(m, 'b', b1),
        r: task(m, 'a', a2),
        s: task(m, 'b', b2),
      });
      const expected = '                  -wyx(z|)';
      m.expect(source.pipe(reconcileByServer(1))).toBeObservable(expected);
    }),
  );

  it(
    'emits everything the tasks emit and completes when the last task completes',
    marbles((m) => {
      const a = m.cold('                 -1-2|');
      const b = m.cold('                 --3----4|');
      const source = m.cold('             (ab|)', { a: task(m, 'a', a), b: task(m, 'b', b) });
      const expected = '                  -132---4|';
      m.expect(source.pipe(reconcileByServer())).toBeObservable(expected);
    }),
  );

  it(
    "passes a task's error on and tears down the other servers' tasks",
    marbles((m) => {
      const failing = m.cold('           --#', undefined, new Error('spawn failed'));
      const b = m.cold('                 -----(B|)');
      const later = m.cold('             -(L|)');
      const source = m.cold('             (fbl|)', {
        f: task(m, 'a', failing),
        b: task(m, 'b', b),
        l: task(m, 'a', later),
      });
      const expected = '                  --#';
      m.expect(source.pipe(reconcileByServer())).toBeObservable(expected, undefined, new Error('spawn failed'));
      m.expect(b).toHaveSubscriptions('   ^-!');
      m.expect(later).toHaveSubscriptions([]);
    }),
  );

  it(
    'frees a server\'s slot when its queue ran dry, though the source stays open (decision 172)',
    marbles((m) => {
      // Server a's queue is empty from frame 2: b, arriving at 3, gets the one slot at once;
      // a's later task waits for b, then runs after a's earlier one, as a new server's would.
      const a = m.cold('                 --(A|)');
      const b = m.cold('                 --(B|)');
      const a2 = m.cold('                -(C|)');
      const source = m.hot('              a--bc---|', { a: task(m, 'a', a), b: task(m, 'b', b), c: task(m, 'a', a2) });
      const expected = '                  --A--BC-|';
      m.expect(source.pipe(reconcileByServer(1))).toBeObservable(expected);
      m.expect(b).toHaveSubscriptions('   ---^-!');
      m.expect(a2).toHaveSubscriptions('  -----^!');
    }),
  );

  it('runs 20,000 servers whose tasks complete at once, each task once, without deep recursion', () => {
    // Every block of a pass completes synchronously: the servers are started in a loop.
    for (const concurrency of [1, 8, Infinity]) {
      const ran: string[] = [];
      const tasks = Array.from({ length: 20_000 }, (_, i): ServerTask<string> => ({ name: `s${i}`, run: () => of(`s${i}`).pipe(tap((n) => ran.push(n))) }));
      const out: string[] = [];
      let completed = false;
      from([...tasks, ...tasks.slice(0, 3)])
        .pipe(reconcileByServer<string>(concurrency))
        .subscribe({ next: (n) => out.push(n), complete: () => (completed = true) });
      expect(completed).toBe(true);
      expect(out).toHaveLength(20_003);
      expect(new Set(ran).size).toBe(20_000);
    }
  });

  it('passes an error thrown by run() on', () => {
    const errors: unknown[] = [];
    const failing: ServerTask<string> = {
      name: 'a',
      run: () => {
        throw new Error('bad task');
      },
    };
    from([failing]).pipe(reconcileByServer<string>()).subscribe({ error: (e: unknown) => errors.push(e) });
    expect(errors).toEqual([new Error('bad task')]);
  });

  it(
    'keeps no state between subscriptions',
    marbles((m) => {
      const a = m.cold('                 --(A|)');
      const b = m.cold('                 --(B|)');
      const source = m.cold('             (ab|)', { a: task(m, 'a', a), b: task(m, 'b', b) });
      const result = source.pipe(reconcileByServer(1));
      m.expect(result).toBeObservable('   --A-(B|)');
      m.expect(result).toBeObservable('   --A-(B|)');
    }),
  );
});
