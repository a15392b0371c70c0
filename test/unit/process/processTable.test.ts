import { describe, expect, it } from 'vitest';
import { descendantsOutsideGroup, parseProcessStat, type ProcessStat } from '../../../src/process/processTable.js';

/** A /proc/<pid>/stat line with the fields we read; the rest are zeros. */
function statLine(pid: number, comm: string, state: string, ppid: number, pgid: number, sid: number, start: number): string {
  const rest = Array.from({ length: 15 }, () => '0');
  return `${pid} (${comm}) ${state} ${ppid} ${pgid} ${sid} ${rest.join(' ')} ${start} 0 0\n`;
}

describe('parseProcessStat', () => {
  it('counts fields from the last ")", so a command name with spaces and parentheses does not shift them', () => {
    expect(parseProcessStat(42, statLine(42, 'evil) S 1 1 1 (name', 'S', 7, 40, 40, 123456))).toEqual({
      pid: 42,
      state: 'S',
      ppid: 7,
      pgid: 40,
      sid: 40,
      startTime: 123456,
    });
  });

  it('answers undefined for a truncated line', () => {
    expect(parseProcessStat(42, '42 (x) S 1 2')).toBeUndefined();
  });
});

describe('descendantsOutsideGroup', () => {
  const p = (pid: number, ppid: number, pgid: number, state = 'S'): ProcessStat => ({ pid, ppid, pgid, sid: pgid, state, startTime: pid });

  it("finds the group's descendants that left it, through members and through outsiders, and skips zombies", () => {
    const table = [
      p(10, 1, 10), // the leader
      p(11, 10, 10), // a member
      p(12, 10, 12), // detached child of the leader
      p(13, 11, 13), // detached child of a member
      p(14, 13, 13), // its child, in its group
      p(15, 12, 15, 'Z'), // an exited one
      p(20, 1, 20), // unrelated
      p(21, 20, 10), // in the group, but reparented long ago: its children count
      p(22, 21, 22),
    ];
    expect(descendantsOutsideGroup(10, table).map((d) => d.pid).sort()).toEqual([12, 13, 14, 22]);
  });

  it('walks only from the roots it is given', () => {
    const table = [p(11, 1, 10), p(12, 11, 12), p(21, 1, 10), p(22, 21, 22)];
    expect(descendantsOutsideGroup(10, table, [11]).map((d) => d.pid)).toEqual([12]);
  });
});
