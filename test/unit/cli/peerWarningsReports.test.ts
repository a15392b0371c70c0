import { describe, expect, it } from 'vitest';
import { runPlan } from '../../../src/cli/planCommand.js';
import { formatWarnings, runStatus } from '../../../src/cli/statusCommand.js';
import { planReport, type PlanReport } from '../../../src/live/planReport.js';
import { fakeLive, server } from '../../ui/fakeLive.js';
import { collect, planWorkspaceEachTest } from '../planWorkspace.js';

/**
 * Decision 10: `plan` and `status` warn "GITHUB_PAT is not set" for a variable an entry
 * reads that is unset (names only, never values) — plan from real files on disk, status from a
 * session's statuses.
 */

const SET_SECRET = 'set-value-abc123';

describe('plan: warnings for unset variables (real files)', () => {
  const planFolders = planWorkspaceEachTest('mcp-live-plan-warnings-');

  /** Claude Code's GitHub example in .mcp.json (pending approval) and a user entry with a default. */
  function workspace() {
    const folders = planFolders({
      project: {
        '.mcp.json': {
          mcpServers: {
            github: {
              type: 'http',
              url: 'https://api.githubcopilot.com/mcp/',
              headers: { Authorization: 'Bearer ${GITHUB_PAT}', 'X-Set': '${SET_ONE}' },
            },
          },
        },
      },
      settings: { mcpServers: { logs: { command: 'node', args: ['s.js', '--level', '${LOG_LEVEL:-info}', '$NOT_THERE'] } } },
    });
    return { ...folders, env: { SET_ONE: SET_SECRET } };
  }

  it('plan --json: each server’s warnings, a pending one included, names only', async () => {
    const { out, text } = collect();
    await runPlan(workspace(), true, out);
    const report = JSON.parse(text()) as PlanReport;
    const byName = Object.fromEntries(report.servers.map((s) => [s.name, s]));
    expect(byName.github).toMatchObject({ admitted: false, reason: 'pending_approval', warnings: ['GITHUB_PAT is not set'] });
    expect(byName.logs).toMatchObject({ admitted: true, warnings: ['NOT_THERE is not set'] });
    expect(text()).not.toContain(SET_SECRET);
  });

  it('plan (text): one "! server: VAR is not set" line per warning', async () => {
    const { out, text } = collect();
    expect(await runPlan(workspace(), false, out)).toBe(0);
    expect(text()).toContain('! github: GITHUB_PAT is not set\n');
    expect(text()).toContain('! logs: NOT_THERE is not set\n');
    expect(text()).not.toContain('LOG_LEVEL is not set');
  });

  it('no warnings key when nothing is unset', async () => {
    const options = workspace();
    const report = await planReport({ ...options, env: { ...options.env, GITHUB_PAT: 'x', NOT_THERE: 'y' } });
    expect(report.servers.map((s) => s.warnings)).toEqual([undefined, undefined]);
  });
});

describe('status: warnings of a running server', () => {
  const statuses = () =>
    fakeLive({ servers: [server('github', { warnings: ['GITHUB_PAT is not set'] }), server('quiet')] });

  it('status (text): a "! github: GITHUB_PAT is not set" line under the table', async () => {
    const { out, text } = collect();
    expect(await runStatus(statuses().live, false, out, {})).toBe(0);
    expect(text()).toMatch(/github\s+user\s+connected/);
    expect(text()).toContain('! github: GITHUB_PAT is not set\n');
    expect(text()).not.toContain('! quiet');
  });

  it('status --json: "warnings" on the server that has some, absent elsewhere', async () => {
    const { out, text } = collect();
    await runStatus(statuses().live, true, out, {});
    const report = JSON.parse(text()) as { servers: { name: string; warnings?: string[] }[] };
    expect(report.servers.find((s) => s.name === 'github')?.warnings).toEqual(['GITHUB_PAT is not set']);
    expect(report.servers.find((s) => s.name === 'quiet')).not.toHaveProperty('warnings');
  });

  it('formatWarnings prints nothing without warnings', () => {
    expect(formatWarnings([{ name: 'a' }, { name: 'b', warnings: [] }])).toBe('');
  });
});
