import { describe, it } from 'vitest';
import type { AssembleInput } from '../../src/model/settings/assemble.js';
import { withSessionEnablement } from '../../src/operators/withSessionEnablement.js';
import { marbles } from './marbles.js';

const input = (file: string): AssembleInput => ({
  sources: [{ scope: 'user', file, servers: {} }],
  approvals: {},
  sessionApprovals: {},
  folderTrusted: true,
});

describe('withSessionEnablement', () => {
  it(
    'joins the latest overrides into every input, and a new override makes a new input',
    marbles((m) => {
      const i = input('i');
      const j = input('j');
      const e = {};
      const f = { x: false };
      const inputs = m.hot('    --i-------j--|', { i, j });
      const enablement = m.hot('e----f--------', { e, f });
      const expected = '        --a--b----c---';
      m.expect(inputs.pipe(withSessionEnablement(enablement))).toBeObservable(expected, {
        a: { ...i, sessionEnablement: e },
        b: { ...i, sessionEnablement: f },
        c: { ...j, sessionEnablement: f },
      });
    }),
  );

  it(
    'emits nothing without an input, and passes an error on',
    marbles((m) => {
      m.expect(m.cold('|').pipe(withSessionEnablement(m.cold('e', { e: {} })))).toBeObservable('-');
      m.expect(m.cold('--#').pipe(withSessionEnablement(m.cold('e', { e: {} })))).toBeObservable('--#');
    }),
  );
});
