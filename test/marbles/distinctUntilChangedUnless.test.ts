import { describe, it } from 'vitest';
import { distinctUntilChangedUnless } from '../../src/operators/distinctUntilChangedUnless.js';
import { marbles } from './marbles.js';

/** A desired state, reduced to what the gate looks at: its content and whether it is a manual reload. */
interface Desired {
  servers: string;
  reload: boolean;
}

const sameServers = (a: Desired, b: Desired): boolean => a.servers === b.servers;
const isReload = (d: Desired): boolean => d.reload;
const gate = () => distinctUntilChangedUnless(sameServers, isReload);

// Fresh objects each time, so equality is by content, never by reference.
const values = {
  a: { servers: 'a', reload: false },
  b: { servers: 'b', reload: false },
  c: { servers: 'c', reload: false },
  A: { servers: 'a', reload: true },
  B: { servers: 'b', reload: true },
  x: { servers: 'a', reload: false },
};

describe('distinctUntilChangedUnless', () => {
  it(
    'completes without emitting for an empty source',
    marbles((m) => {
      const source = m.cold<Desired>('  |');
      m.expect(source.pipe(gate())).toBeObservable('|');
    }),
  );

  it(
    'never emits for a never source',
    marbles((m) => {
      const source = m.cold<Desired>('  -');
      m.expect(source.pipe(gate())).toBeObservable('-');
    }),
  );

  it(
    'passes an error on',
    marbles((m) => {
      const source = m.hot<Desired>('   -a-a-#', values);
      const expected = '                -a---#';
      m.expect(source.pipe(gate())).toBeObservable(expected, values);
    }),
  );

  it(
    'routes an error thrown by equals downstream',
    marbles((m) => {
      const source = m.hot<Desired>('   -a-b-', values);
      const expected = '                -a-#';
      const boom = new Error('boom');
      const throwing = distinctUntilChangedUnless<Desired>(() => {
        throw boom;
      }, isReload);
      m.expect(source.pipe(throwing)).toBeObservable(expected, values, boom);
    }),
  );

  it(
    'stops at an early unsubscribe',
    marbles((m) => {
      const source = m.hot<Desired>('   -a-b-c-', values);
      const unsub = '                   ^--!';
      const subs = '                    ^--!';
      const expected = '                -a--';
      m.expect(source.pipe(gate()), unsub).toBeObservable(expected, values);
      m.expect(source).toHaveSubscriptions(subs);
    }),
  );

  it(
    'suppresses values equal to the last one passed',
    marbles((m) => {
      const source = m.hot<Desired>('   -a-x-a-b-b-a-|', values);
      const expected = '                -a-----b---a-|';
      m.expect(source.pipe(gate())).toBeObservable(expected, values);
    }),
  );

  it(
    'passes a bypass value even when it is equal to the last one passed',
    marbles((m) => {
      const source = m.hot<Desired>('   -a-A-A-b-B-|', values);
      const expected = '                -a-A-A-b-B-|';
      m.expect(source.pipe(gate())).toBeObservable(expected, values);
    }),
  );

  it(
    'makes a bypass value the new base for the comparison',
    marbles((m) => {
      // b, then a reload of a: the a after it equals the reload and is dropped,
      // but b is compared with the reload (a), not with the earlier b, so it passes.
      const source = m.hot<Desired>('   -b-A-a-b-|', values);
      const expected = '                -b-A---b-|';
      m.expect(source.pipe(gate())).toBeObservable(expected, values);
    }),
  );

  it(
    'keeps the base per subscription',
    marbles((m) => {
      const source = m.cold<Desired>('  -a-a-b-|', values);
      const gated = source.pipe(gate());
      const expected = '                -a---b-|';
      m.expect(gated).toBeObservable(expected, values);
      m.expect(gated).toBeObservable(expected, values);
    }),
  );
});
