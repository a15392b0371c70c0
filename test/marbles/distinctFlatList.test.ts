import { describe, expect, it } from 'vitest';
import { Subject } from 'rxjs';
import { distinctFlatList } from '../../src/operators/distinctFlatList.js';
import { marbles } from './marbles.js';

/** A server reduced to what the operator reads: its name and its list (compared by reference). */
interface Item {
  name: string;
  list: readonly string[];
}

const T = ['t1', 't2'];
const U = ['u1'];
const EMPTY: readonly string[] = [];
const of = (...items: [string, readonly string[]][]): Item[] => items.map(([name, list]) => ({ name, list }));

// Inputs: what servers$ emits — a new array, with new item objects, on every status change.
const inputs = {
  e: of(['a', EMPTY], ['b', EMPTY]), // both connecting
  t: of(['a', T], ['b', EMPTY]), // a connected
  T: of(['a', T], ['b', EMPTY]), // b's status changed (an error, a pid): same lists
  u: of(['a', T], ['b', U]), // b connected
  n: of(['a', T], ['b', U], ['c', EMPTY]), // a new server, connecting
  c: of(['a', [...T]], ['b', U]), // a's list: a new array with the same content (kept by LiveServers, not here)
};
const outputs = { E: [], X: ['t1', 't2'], Y: ['t1', 't2', 'u1'] };

const flat = () => distinctFlatList((i: Item) => i.list);

describe('distinctFlatList', () => {
  it(
    'completes without emitting for an empty source',
    marbles((m) => {
      m.expect(m.cold<Item[]>('|').pipe(flat())).toBeObservable('|');
    }),
  );

  it(
    'never emits for a never source',
    marbles((m) => {
      m.expect(m.cold<Item[]>('-').pipe(flat())).toBeObservable('-');
    }),
  );

  it(
    'passes an error on',
    marbles((m) => {
      const source = m.hot<Item[]>('-e-t-#', inputs);
      m.expect(source.pipe(flat())).toBeObservable('-E-X-#', outputs);
    }),
  );

  it(
    'two servers connecting: three distinct lists, three emissions (five before decision 68)',
    marbles((m) => {
      const source = m.hot<Item[]>('-e-e-t-T-u-n-|', inputs);
      const expected = '            -E---X---Y---|';
      m.expect(source.pipe(flat())).toBeObservable(expected, outputs);
    }),
  );

  it(
    'a list replaced by another array counts as changed: equality is by reference',
    marbles((m) => {
      const source = m.hot<Item[]>('-u-c-|', inputs);
      // Equal content, new array: it passes. LiveServers keeps the reference of an equal list.
      m.expect(source.pipe(flat())).toBeObservable('-Y-Y-|', outputs);
    }),
  );

  it(
    'projects each entry with its item',
    marbles((m) => {
      const source = m.hot<Item[]>('-t-T-u-|', inputs);
      const named = distinctFlatList(
        (i: Item) => i.list,
        (entry, i) => `${i.name}:${entry}`,
      );
      m.expect(source.pipe(named)).toBeObservable('-X---Y-|', { X: ['a:t1', 'a:t2'], Y: ['a:t1', 'a:t2', 'b:u1'] });
    }),
  );

  it('keeps its state per subscription', () => {
    const source = new Subject<Item[]>();
    const first: (readonly string[])[] = [];
    const second: (readonly string[])[] = [];
    const piped = source.pipe(flat());
    const s1 = piped.subscribe((v) => first.push(v));
    source.next(inputs.t);
    const s2 = piped.subscribe((v) => second.push(v));
    source.next(inputs.T);
    s1.unsubscribe();
    s2.unsubscribe();
    expect(first).toEqual([['t1', 't2']]);
    // Its first value passes, although the other subscriber had seen an equal one.
    expect(second).toEqual([['t1', 't2']]);
  });
});
