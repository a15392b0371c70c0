import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { entryChanges } from '../../src/model/admission/entryChanges.js';
import { reviewEntry } from '../../src/model/admission/reviewEntry.js';

/** The review lines of an entry as the dialog shows a gated one. */
const lines = (entry: unknown) => reviewEntry(entry, 'mcp', 'project').lines;

describe('entryChanges (decision 331)', () => {
  it('an edited arg reads before → after, on the command line as the review shows it', () => {
    expect(entryChanges(lines({ command: 'node', args: ['helper.mjs', '--mode', 'safe'] }), lines({ command: 'node', args: ['helper.mjs', '--mode', 'fast'] }))).toEqual([
      { label: 'command', before: 'node helper.mjs --mode safe', after: 'node helper.mjs --mode fast' },
    ]);
  });

  it('pairs env and header lines by their name: a new value, a new variable, a removed header', () => {
    const before = lines({ url: 'https://a.example/mcp', env: { MODE: 'a', KEEP: '1' }, headers: { 'X-Old': 'x', Authorization: 'Bearer ${TOKEN}' } });
    const after = lines({ url: 'https://a.example/mcp', env: { KEEP: '1', MODE: 'b', NODE_OPTIONS: '--require ./evil.cjs' }, headers: { Authorization: 'Bearer ${TOKEN}' } });
    expect(entryChanges(before, after)).toEqual([
      { label: 'env', before: 'MODE=a', after: 'MODE=b' },
      { label: 'env', after: 'NODE_OPTIONS=--require ./evil.cjs' },
      { label: 'header', before: 'X-Old: x' },
    ]);
  });

  it('a field added or removed: cwd new, trust gone, and what the entry reads from the environment', () => {
    expect(entryChanges(lines({ command: 'srv', trust: true }), lines({ command: 'srv', cwd: '/tmp/x', args: ['${HOME}'] }))).toEqual([
      { label: 'command', before: 'srv', after: 'srv ${HOME}' },
      { label: 'cwd', after: '/tmp/x' },
      { label: 'reads', after: 'from your environment: HOME' },
      { label: 'trust', before: 'true' },
    ]);
  });

  it('property: no change for the same lines in any order; every line of either side is accounted for', () => {
    const line = fc.record({ label: fc.constantFrom('command', 'env', 'header', 'root', 'cwd'), value: fc.constantFrom('a', 'b', 'K=1', 'K=2', 'H: x', 'H: y') });
    fc.assert(
      fc.property(fc.array(line, { maxLength: 8 }), fc.array(line, { maxLength: 8 }), (before, after) => {
        expect(entryChanges(before, [...before].reverse())).toEqual([]);
        const changes = entryChanges(before, after);
        // before minus the changes' befores = after minus the changes' afters (as multisets).
        const rest = (all: typeof before, side: 'before' | 'after') => {
          const left = all.map((l) => `${l.label}\0${l.value}`);
          for (const c of changes) {
            const v = c[side];
            if (v === undefined) continue;
            const at = left.indexOf(`${c.label}\0${v}`);
            expect(at).toBeGreaterThanOrEqual(0);
            left.splice(at, 1);
          }
          return left.sort();
        };
        expect(rest(before, 'before')).toEqual(rest(after, 'after'));
      }),
    );
  });
});
