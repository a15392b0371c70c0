import { describe, expect, it } from 'vitest';
import type { ApprovalDecisions, ApprovalsStore } from '../../src/model/types.js';
import { pinMarks } from '../../src/sinks/stores/pinMarks.js';

/** The approvals' pin markers (decisions 309, 315): the digest a persisted approval carries, or a session's in memory. */

const D1 = '1'.repeat(64);
const D2 = '2'.repeat(64);

function setup(decisions: ApprovalDecisions, fail?: string) {
  const written: string[] = [];
  const warnings: string[] = [];
  const store: ApprovalsStore = {
    file: '/h/mcpApprovals.json',
    read: () => Promise.resolve({ decisions }),
    decide: () => Promise.resolve(),
    decideAll: () => Promise.resolve(),
    markPinned: (root, server, hash, pin) => {
      written.push(`${root} ${server} ${hash} ${pin}`);
      return fail === undefined ? Promise.resolve() : Promise.reject(new Error(fail));
    },
  };
  let rereads = 0;
  const marks = pinMarks(() => decisions, store, '/p', (m) => void warnings.push(m), () => Promise.resolve(void (rereads += 1)));
  return { marks, written, warnings, rereads: () => rereads };
}

describe('pinMarks', () => {
  it('flush() settles only when every marker write under way has ended (a session disposed writes nothing after)', async () => {
    let finish!: () => void;
    const ended: string[] = [];
    const store: ApprovalsStore = {
      file: '/h/mcpApprovals.json',
      read: () => Promise.resolve({ decisions: {} }),
      decide: () => Promise.resolve(),
      decideAll: () => Promise.resolve(),
      markPinned: () => new Promise<void>((done) => (finish = () => done(void ended.push('written')))),
    };
    const marks = pinMarks(() => ({ fs: { hash: 'h1', status: 'approved', pin: D1 } }), store, '/p', () => undefined, () => Promise.resolve());
    marks.markPinned('fs', 'h1', D2);
    let flushed = false;
    const flushing = marks.flush().then(() => (flushed = true));
    await new Promise((r) => setImmediate(r));
    expect(flushed).toBe(false);
    finish();
    await flushing;
    expect(ended).toEqual(['written']);
    await expect(marks.flush()).resolves.toBeUndefined();
  });

  it("reads a persisted approval's digest only for that approval", () => {
    const { marks } = setup({ fs: { hash: 'h1', status: 'approved', pin: D1 }, web: { hash: 'h2', status: 'rejected' } });
    expect(marks.approvedPin('fs', 'h1')).toBe(D1);
    expect(marks.approvedPin('fs', 'h0')).toBeUndefined();
    expect(marks.approvedPin('web', 'h2')).toBeUndefined();
    expect(marks.approvedPin('__proto__', 'h1')).toBeUndefined();
  });

  it('writes a new digest to a persisted approval, not the one it has, and goes by memory meanwhile', async () => {
    const { marks, written, rereads } = setup({ fs: { hash: 'h1', status: 'approved', pin: D1 } });
    marks.markPinned('fs', 'h1', D1);
    expect(written).toEqual([]);
    marks.markPinned('fs', 'h1', D2);
    expect(written).toEqual([`/p fs h1 ${D2}`]);
    expect(marks.approvedPin('fs', 'h1')).toBe(D2);
    await new Promise((done) => setImmediate(done));
    expect(rereads()).toBe(1);
  });

  it('writes the marker again to an approval given again without it (its file was lost), once while it is written', async () => {
    const decisions: Record<string, ApprovalDecisions[string]> = { fs: { hash: 'h1', status: 'approved', pin: D1 } };
    const { marks, written } = setup(decisions);
    marks.markPinned('fs', 'h1', D1);
    expect(written).toEqual([]);
    // The file was corrupt, the user approved the same entry again: a record without the marker.
    decisions.fs = { hash: 'h1', status: 'approved' };
    marks.markPinned('fs', 'h1', D1);
    marks.markPinned('fs', 'h1', D1);
    expect(written).toEqual([`/p fs h1 ${D1}`]);
    await new Promise((done) => setImmediate(done));
    marks.markPinned('fs', 'h1', D1);
    expect(written).toEqual([`/p fs h1 ${D1}`, `/p fs h1 ${D1}`]);
  });

  it('keeps a session approval in memory only', () => {
    const { marks, written } = setup({});
    expect(marks.approvedPin('fs', 'h1')).toBeUndefined();
    marks.markPinned('fs', 'h1', D1);
    expect(marks.approvedPin('fs', 'h1')).toBe(D1);
    expect(marks.approvedPin('fs', 'h2')).toBeUndefined();
    expect(written).toEqual([]);
  });

  it('warns when the digest cannot be written, and keeps it for this session', async () => {
    const { marks, warnings } = setup({ fs: { hash: 'h1', status: 'approved' } }, 'disk full');
    marks.markPinned('fs', 'h1', D1);
    expect(marks.approvedPin('fs', 'h1')).toBe(D1);
    await new Promise((done) => setImmediate(done));
    expect(warnings).toEqual([expect.stringContaining('the approval of "fs" could not record its pin (disk full)')]);
  });
});
