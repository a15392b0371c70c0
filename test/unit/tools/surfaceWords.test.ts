import { describe, expect, it } from 'vitest';
import type { ServerStatus } from '../../../src/model/report/status.js';
import { eventLogText } from '../../../src/hosts/ui/text/eventLogLine.js';
import { formatDuration, idleText } from '../../../src/model/report/messages.js';
import { countServers, statusText } from '../../../src/hosts/ui/text/serverSummary.js';
import { formatStatusTable } from '../../../src/cli/statusCommand.js';
import { tool } from '../../ui/fakeLive.js';
import { MISSING_PIN } from '../../../src/sinks/mcp/surfacePins.js';

/** The words of the idle state and of a changed surface (decisions 196, 197), as the UI shows them. */

const status = (patch: Partial<ServerStatus>): ServerStatus => ({
  name: 's',
  scope: 'user',
  source: '/s.json',
  state: 'idle',
  tools: [],
  prompts: [],
  resources: [],
  history: [],
  ...patch,
});

describe('idle words', () => {
  it('says why an idle server has no process', () => {
    expect(statusText(status({ idle: 'lazy' }))).toBe('lazy — starts on first use');
    expect(statusText(status({ idle: 'idle-timeout', idleTimeoutMs: 300_000 }))).toBe('stopped after 5 min idle');
    expect(idleText({ idle: 'idle-timeout', idleTimeoutMs: 30_000, error: 'process exited with code 3' })).toBe(
      'stopped after 30 s idle (last process: process exited with code 3)',
    );
  });

  it('says durations as a person says them, in at most two units, never rounding 90 min to 2 h', () => {
    expect([250, 1_000, 1_500, 59_000, 59_960, 60_000, 150_000, 300_000, 3_600_000, 5_400_000, 3_599_700].map(formatDuration)).toEqual([
      '250 ms',
      '1 s',
      '1.5 s',
      '59 s',
      '1 min',
      '1 min',
      '2 min 30 s',
      '5 min',
      '1 h',
      '1 h 30 min',
      '1 h',
    ]);
  });

  it('counts an idle server with the connected ones, and how many are idle, never as an error', () => {
    expect(countServers([status({ idle: 'lazy' }), status({ name: 't', state: 'connected' })])).toEqual({ connected: 2, idle: 1, needApproval: 0, errors: 0 });
  });
});

describe('mcp-live status', () => {
  it('gives an idle server its counts and why it has no process, and says how many changed tools are withheld', () => {
    const table = formatStatusTable([
      status({ name: 'lazy', idle: 'lazy', tools: [tool('lazy', 'a'), tool('lazy', 'b')] }),
      status({ name: 'pinned', state: 'connected', tools: [tool('pinned', 'a')], withheld: ['x', 'y'] }),
    ]);
    const row = (name: string) => table.split('\n').find((l) => l.startsWith(name)) ?? '';
    expect(row('lazy')).toMatch(/idle\s+2 tools, 0 prompts\s+lazy — starts on first use/);
    expect(row('pinned')).toMatch(/connected\s+1 tool, 0 prompts, 2 withheld\s+withheld tools changed since approval/);
  });
});

describe('the surface-changed log line', () => {
  it('names what changed and how many tools are withheld, with the server name escaped', () => {
    const line = eventLogText({
      type: 'surface-changed',
      ts: 0,
      server: 'no\u001b[2Jtes',
      changes: [
        { kind: 'tool', name: 'exfiltrate', change: 'added', after: 'x' },
        { kind: 'tool', name: 'read_notes', change: 'description', before: 'a', after: 'b' },
      ],
      withheld: ['exfiltrate', 'read_notes'],
    });
    expect(line).toEqual({ ts: 0, text: '~ no\\x1b[2Jtes: tool exfiltrate added, tool read_notes description changed; 2 tools withheld until approved', color: 'yellow' });
  });

  it('shows a note line (a missing pin) by its text, and a change known only by its pin as "definition changed"', () => {
    const line = eventLogText({
      type: 'surface-changed',
      ts: 0,
      server: 'p',
      changes: [
        { kind: 'tool', name: '', change: 'description', after: MISSING_PIN },
        { kind: 'tool', name: 'read', change: 'definition' },
      ],
      withheld: ['read'],
    });
    expect(line?.text).toBe(`~ p: ${MISSING_PIN}, tool read definition changed; 1 tool withheld until approved`);
  });

  it('lists three changes and counts the rest; a reported change withholds nothing', () => {
    const changes = ['a', 'b', 'c', 'd', 'e'].map((name) => ({ kind: 'tool' as const, name, change: 'schema' as const }));
    expect(eventLogText({ type: 'surface-changed', ts: 0, server: 'u', changes })?.text).toBe(
      '~ u: tool a schema changed, tool b schema changed, tool c schema changed, 2 more',
    );
  });
});
