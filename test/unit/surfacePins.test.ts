import { describe, expect, it } from 'vitest';
import type { WantedServer } from '../../src/model/reconcile/plan.js';
import { surfaceHash, surfaceOf } from '../../src/model/tools/surface.js';
import { type ServerSurface, type SurfaceChange } from '../../src/model/tools/surfaceTypes.js';
import { pinDigest, pinOf } from '../../src/model/tools/surfacePin.js';
import type { ServerLists } from '../../src/model/types.js';
import { memoryPinStore, type PinOutcome, type PinRecord, type PinStore } from '../../src/sinks/stores/pinStore.js';
import type { SurfaceRecord, SurfaceStore } from '../../src/sinks/stores/surfaceStore.js';
import { MISSING_PIN, SurfacePins, type ApprovalMarks } from '../../src/sinks/mcp/surfacePins.js';

/**
 * The keeper of pins without files or processes (decisions 306–311, 315): fail closed when a pin
 * cannot be written, a missing pin after approval, the approval's marker (the digest of its pin)
 * and a new fingerprint judged by it, old pins of the surface record, and a pin that settles later.
 */

const lists = (tools: string[], prompts: string[] = []): ServerLists => ({
  tools: tools.map((name) => ({ name, description: `${name}!` })),
  prompts: prompts.map((name) => ({ name })),
  resources: [],
});
const project = (fingerprint = 'fp'): WantedServer => ({ name: 'p', scope: 'project', source: '/.mcp.json', fingerprint, view: {} });
const user = (): WantedServer => ({ ...project(), name: 'u', scope: 'user' });

function cache(records: SurfaceRecord[] = []): SurfaceStore {
  const map = new Map(records.map((r) => [r.fingerprint, r]));
  return { path: ':memory:', load: () => Promise.resolve(), get: (fp) => map.get(fp), put: (r) => void map.set(r.fingerprint, r), delete: (fp) => void map.delete(fp), flush: () => Promise.resolve() };
}

/** A pin store whose answers wait until `settle()`, or that fails every write. */
function laterPins(fail?: string): PinStore & { settle(): void } {
  const inner = memoryPinStore();
  const queued: (() => void)[] = [];
  return {
    ...inner,
    pinFirst: (fp, record, done) => void queued.push(() => (fail === undefined ? inner.pinFirst(fp, record, done) : done({ error: fail }))),
    replace: (record, done) => inner.replace(record, done),
    settle: () => queued.splice(0).forEach((run) => run()),
  };
}

/** An approval's marker: the digest of the pin it recorded (`approved`), and what is marked since, as `name digest`. */
function marks(approved?: string): ApprovalMarks & { marked: string[] } {
  const marked: string[] = [];
  let current = approved;
  return {
    marked,
    approvedPin: () => current,
    markPinned: (name, _hash, pin) => {
      current = pin;
      marked.push(`${name} ${pin}`);
    },
  };
}

const digestOf = (l: ServerLists, instructions?: string): string => pinDigest(pinOf(surfaceOf(l, instructions === undefined ? undefined : { instructions })));

function keeper(deps: { store?: SurfaceStore; pins?: PinStore; marks?: ApprovalMarks; strict?: boolean }) {
  const changed: { server: string; changes: readonly SurfaceChange[] }[] = [];
  const reobserved: string[] = [];
  const pins = new SurfacePins({
    store: deps.store ?? cache(),
    pins: deps.pins ?? memoryPinStore(),
    ...(deps.marks === undefined ? {} : { marks: deps.marks }),
    configHash: () => 'cfg',
    strict: () => deps.strict === true,
    onChanged: (server, changes) => void changed.push({ server, changes }),
    reobserve: (name) => void reobserved.push(name),
    now: () => 1000,
  });
  return { pins, changed, reobserved };
}

const sorted = (set: ReadonlySet<string>): string[] => [...set].sort();

describe('SurfacePins', () => {
  it('pins a first sight, marks the approval, then withholds changed tools and prompts and changed instructions', () => {
    const m = marks();
    const { pins } = keeper({ marks: m });
    const first = pins.observe(project(), lists(['a'], ['greet']), { instructions: 'Be nice.' });
    expect([first.tools.size, first.prompts.size, first.instructions]).toEqual([0, 0, false]);
    expect(new Set(m.marked)).toEqual(new Set([`p ${digestOf(lists(['a'], ['greet']), 'Be nice.')}`]));
    const later = pins.observe(project(), { ...lists(['a', 'b'], ['greet', 'sneak']), prompts: [{ name: 'greet', description: 'changed' }, { name: 'sneak' }] }, { instructions: 'Be evil.' });
    expect([sorted(later.tools), sorted(later.prompts), later.instructions]).toEqual([['b'], ['greet', 'sneak'], true]);
    expect(pins.waitingFor('p')?.changes.map((c) => `${c.kind} ${c.name} ${c.change}`)).toEqual([
      'instructions  description',
      'tool b added',
      'prompt greet description',
      'prompt sneak added',
    ]);
  });

  it('a user-scope server in strict mode is pinned but its approval never marked', () => {
    const m = marks();
    const { pins } = keeper({ marks: m, strict: true });
    pins.observe(user(), lists(['a']), undefined);
    expect(sorted(pins.observe(user(), lists(['a', 'b']), undefined).tools)).toEqual(['b']);
    expect(m.marked).toEqual([]);
  });

  it('fails closed: a pin that cannot be written withholds everything and asks nothing', () => {
    const store = laterPins('disk full');
    const { pins, reobserved } = keeper({ pins: store });
    const wait = pins.prepare(project(), lists(['a'], ['greet']), { instructions: 'x' });
    expect(wait).toBeInstanceOf(Promise);
    store.settle();
    expect(reobserved).toEqual(['p']);
    const withheld = pins.observe(project(), lists(['a'], ['greet']), { instructions: 'x' });
    expect([sorted(withheld.tools), sorted(withheld.prompts), withheld.instructions]).toEqual([['a'], ['greet'], true]);
    expect(pins.waitingFor('p')).toBeUndefined();
  });

  it("an approval whose pin cannot be written fails closed too, and a reconnect compares with the pin on disk", () => {
    const inner = memoryPinStore();
    let failing = true;
    const pinStore: PinStore = {
      ...inner,
      replace: (record, done) => (failing ? done({ error: 'disk full' }) : inner.replace(record, done)),
    };
    const { pins, reobserved } = keeper({ pins: pinStore });
    pins.observe(project(), lists(['a']), undefined);
    expect(sorted(pins.observe(project(), lists(['a', 'b']), undefined).tools)).toEqual(['b']);
    expect(pins.approve('p', pins.waitingFor('p')!.hash)).toBe(true);
    expect(reobserved).toEqual(['p']);
    const withheld = pins.observe(project(), lists(['a', 'b']), undefined);
    expect([sorted(withheld.tools), withheld.reason]).toEqual([['a', 'b'], expect.stringContaining('could not pin its surface (disk full)')]);
    // Reconnected: the pin on disk (the one before the approval) is what holds.
    failing = false;
    expect(pins.prepare(project(), lists(['a', 'b']), undefined)).toBeUndefined();
    expect(sorted(pins.observe(project(), lists(['a', 'b']), undefined).tools)).toEqual(['b']);
    expect(pins.waitingFor('p')).toBeDefined();
  });

  it('withholds everything until a first sight is pinned, then observes again', async () => {
    const store = laterPins();
    const { pins, reobserved } = keeper({ pins: store });
    const wait = pins.prepare(project(), lists(['a']), undefined)!;
    expect(sorted(pins.observe(project(), lists(['a']), undefined).tools)).toEqual(['a']);
    store.settle();
    await wait;
    expect(reobserved).toEqual(['p']);
    expect(pins.observe(project(), lists(['a']), undefined).tools.size).toBe(0);
    expect(pins.prepare(project(), lists(['a']), undefined)).toBeUndefined();
  });

  it('a pin missing after approval, with a surface other than the approved one, withholds everything and waits with the reason; approving pins it and records its digest', () => {
    const pinStore = memoryPinStore();
    const m = marks(digestOf(lists(['a'])));
    const { pins, changed } = keeper({ pins: pinStore, marks: m });
    const withheld = pins.observe(project(), lists(['a'], ['greet']), undefined);
    expect([sorted(withheld.tools), sorted(withheld.prompts)]).toEqual([['a'], ['greet']]);
    expect(pinStore.get('fp')).toBeUndefined();
    const waiting = pins.waitingFor('p')!;
    expect(waiting.changes).toEqual([{ kind: 'tool', name: '', change: 'description', after: MISSING_PIN }]);
    expect(changed.map((c) => c.server)).toEqual(['p']);
    expect(pins.approve('p', waiting.hash)).toBe(true);
    expect(pinStore.get('fp')?.pin).toEqual(pinOf(surfaceOf(lists(['a'], ['greet']))));
    expect(pins.observe(project(), lists(['a'], ['greet']), undefined).tools.size).toBe(0);
    // The approval now records the pin of the surface approved.
    expect(new Set(m.marked)).toEqual(new Set([`p ${digestOf(lists(['a'], ['greet']))}`]));
  });

  it("a new fingerprint (a rotated secret) whose surface has the approval's pin is pinned and offered, asking nothing (decision 315)", () => {
    const pinStore = memoryPinStore();
    const m = marks();
    const { pins, changed } = keeper({ pins: pinStore, marks: m });
    pins.observe(project('fp1'), lists(['a'], ['greet']), { instructions: 'x' });
    const withheld = pins.observe(project('fp2'), lists(['a'], ['greet']), { instructions: 'x' });
    expect([withheld.tools.size, withheld.prompts.size, withheld.instructions]).toEqual([0, 0, false]);
    expect(pinStore.get('fp2')?.pin).toEqual(pinStore.get('fp1')?.pin);
    expect(pins.waitingFor('p')).toBeUndefined();
    expect(changed).toEqual([]);
    // One marker: the pin of the new fingerprint is the one recorded.
    expect(new Set(m.marked)).toEqual(new Set([`p ${digestOf(lists(['a'], ['greet']), 'x')}`]));
  });

  it("a pin already on disk for the new fingerprint wins over the approval's (decision 308)", () => {
    const pinStore = memoryPinStore();
    const theirs: PinRecord = { name: 'p', fingerprint: 'fp2', pin: pinOf(surfaceOf(lists(['a']))), pinnedAt: 1 };
    pinStore.pinFirst('fp2', theirs, (_: PinOutcome) => undefined);
    const { pins } = keeper({ pins: pinStore, marks: marks(digestOf(lists(['a', 'b']))) });
    expect(sorted(pins.observe(project('fp2'), lists(['a', 'b']), undefined).tools)).toEqual(['b']);
    expect(pinStore.get('fp2')).toBe(theirs);
  });

  it("a new fingerprint with another surface is compared with the approval's pin where another fingerprint keeps it: only what changed is withheld", () => {
    const pinStore = memoryPinStore();
    const { pins } = keeper({ pins: pinStore, marks: marks() });
    pins.observe(project('fp1'), lists(['a', 'b']), undefined);
    const withheld = pins.observe(project('fp2'), { ...lists(['a', 'c']), tools: [{ name: 'a', description: 'a!' }, { name: 'c' }] }, undefined);
    expect(sorted(withheld.tools)).toEqual(['c']);
    expect(pinStore.get('fp2')?.pin).toEqual(pinStore.get('fp1')?.pin);
    expect(pins.waitingFor('p')?.changes).toEqual([
      { kind: 'tool', name: 'c', change: 'added' },
      { kind: 'tool', name: 'b', change: 'removed' },
    ]);
  });

  it("a new fingerprint with another surface and the approval's pin nowhere at hand withholds everything and asks", () => {
    const pinStore = memoryPinStore();
    const { pins } = keeper({ pins: pinStore, marks: marks(digestOf(lists(['a']))) });
    const withheld = pins.observe(project('fp2'), lists(['a', 'b']), undefined);
    expect(sorted(withheld.tools)).toEqual(['a', 'b']);
    expect(pinStore.get('fp2')).toBeUndefined();
    expect(pins.waitingFor('p')?.changes).toEqual([{ kind: 'tool', name: '', change: 'description', after: MISSING_PIN }]);
  });

  it('takes an old pin of the surface record (the file of earlier versions) as the pin, not the surface seen now', () => {
    const approved: ServerSurface = surfaceOf(lists(['a']));
    const old: SurfaceRecord = { name: 'p', fingerprint: 'fp', hash: surfaceHash(approved), surface: approved, seenAt: 1, pinned: { hash: surfaceHash(approved), surface: approved, approvedAt: 1 } };
    const pinStore = memoryPinStore();
    const { pins } = keeper({ store: cache([old]), pins: pinStore, marks: marks(digestOf(lists(['x']))) });
    expect(sorted(pins.observe(project(), lists(['a', 'sneaky']), undefined).tools)).toEqual(['sneaky']);
    expect(pinStore.get('fp')?.pin).toEqual(pinOf(approved));
  });

  it("refreshes an unchanged record's seenAt once it is a day old, so the cache drops what is not seen any more first", () => {
    const surface = surfaceOf(lists(['a']));
    const store = cache([{ name: 'u', fingerprint: 'fp', hash: surfaceHash(surface), surface, seenAt: 1000 - 25 * 3600 * 1000 }]);
    const { pins } = keeper({ store });
    pins.observe(user(), lists(['a']), undefined);
    expect(store.get('fp')?.seenAt).toBe(1000);
    const fresh = cache([{ name: 'u', fingerprint: 'fp', hash: surfaceHash(surface), surface, seenAt: 999 }]);
    keeper({ store: fresh }).pins.observe(user(), lists(['a']), undefined);
    expect(fresh.get('fp')?.seenAt).toBe(999);
  });

  it('a pin another process wrote first holds over our first sight', () => {
    const pinStore = memoryPinStore();
    const theirs: PinRecord = { name: 'p', fingerprint: 'fp', pin: pinOf(surfaceOf(lists(['a']))), pinnedAt: 1 };
    pinStore.pinFirst('fp', theirs, (_: PinOutcome) => undefined);
    const { pins } = keeper({ pins: pinStore });
    expect(sorted(pins.observe(project(), lists(['a', 'b']), undefined).tools)).toEqual(['b']);
    // Shown by what the pin alone can tell: the approved text is not in this cache.
    expect(pins.waitingFor('p')?.changes).toEqual([{ kind: 'tool', name: 'b', change: 'added' }]);
  });
});
