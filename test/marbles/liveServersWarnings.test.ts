import { VirtualTimeScheduler } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { resolveAssembled } from '../../src/model/reconcile/plan.js';
import type { AssembledServer } from '../../src/model/types.js';
import { createLiveServers } from '../../src/sinks/mcp/liveServers.js';
import { fakeConnector } from './fakeConnector.js';

/** Decision 10: the "not set" warnings of a wanted server reach its status (`servers$`, status, the detail view). */

const WORKSPACE = '/w';
const entry = (config: unknown): AssembledServer => ({ name: 'github', scope: 'project', source: '/w/.mcp.json', config });

function setup() {
  const scheduler = new VirtualTimeScheduler();
  const fake = fakeConnector(scheduler);
  const live = createLiveServers({ connector: fake.connector, scheduler });
  const connect = (config: unknown, env: Record<string, string | undefined> = {}): void => {
    live.lifecycle.connect(resolveAssembled(entry(config), env, WORKSPACE)).subscribe();
    scheduler.flush();
  };
  return { live, connect };
}

describe('LiveServers: warnings of a wanted server', () => {
  it('Claude Code .mcp.json: an unset ${GITHUB_PAT} shows as "GITHUB_PAT is not set" on the server’s status, names only', () => {
    const { live, connect } = setup();
    connect({ command: 'x', args: ['connect=0'], env: { GITHUB_PERSONAL_ACCESS_TOKEN: '${GITHUB_PAT}', OTHER: '${SET_ONE}' } }, { SET_ONE: 'v4lue-secret' });
    expect(live.board.status('github')).toMatchObject({ state: 'connected', warnings: ['GITHUB_PAT is not set'] });
    expect(JSON.stringify(live.board.status('github'))).not.toContain('v4lue-secret');
  });

  it('no warnings key when every variable is set or has a default', () => {
    const { live, connect } = setup();
    connect({ command: 'x', args: ['connect=0'], env: { A: '${GITHUB_PAT:-none}' } });
    expect(live.board.status('github')?.state).toBe('connected');
    expect(live.board.status('github')).not.toHaveProperty('warnings');
  });

  it('a blocked server has no warnings (it does not run)', () => {
    const { live, connect } = setup();
    connect({ command: 'x', args: ['connect=0', '${MISSING}'] });
    expect(live.board.status('github')?.warnings).toEqual(['MISSING is not set']);
    live.lifecycle.block('github', 'project', '/w/.mcp.json', { reason: 'pending_approval' }).subscribe();
    expect(live.board.status('github')).not.toHaveProperty('warnings');
  });

  it('an entry that is fixed loses its warning on reconnect', () => {
    const { live, connect } = setup();
    connect({ command: 'x', args: ['connect=0', '${MISSING}'] });
    expect(live.board.status('github')?.warnings).toEqual(['MISSING is not set']);
    connect({ command: 'x', args: ['connect=0', '${MISSING}'] }, { MISSING: 'here' });
    expect(live.board.status('github')).not.toHaveProperty('warnings');
  });
});
