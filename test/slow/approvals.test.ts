import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { approvalHash } from '../../src/model/settings/approvalHash.js';
import { CLI, settleFor, waitUntil } from '../e2e/cliSession.js';
import { POSIX } from '../platforms.js';
import { LineWorker, report, tiny, scenarioEachTest } from './kit.js';

/**
 * Approvals under stress: concurrent writers, a corrupt store, renamed servers, and servers
 * moving between gated and ungated scopes.
 */

const run = promisify(execFile);
const scenario = scenarioEachTest();

function stored(file: string): Record<string, Record<string, { hash: string; status: string; pin?: string }>> {
  return JSON.parse(readFileSync(file, 'utf8')) as Record<string, Record<string, { hash: string; status: string; pin?: string }>>;
}

/**
 * Until the session has recorded each connected server's pin digest in its approval (decision
 * 309): that write is a locked read-modify-write of the file, and a test that writes the file
 * without the lock must not race it.
 */
async function markersWritten(file: string, root: string, servers: readonly string[]): Promise<void> {
  await waitUntil(() => {
    try {
      const decisions = stored(file)[root] ?? {};
      return servers.every((name) => typeof decisions[name]?.pin === 'string');
    } catch {
      return false;
    }
  }, `the pin markers of ${servers.join(', ')}`);
}

describe('approvals', () => {
  it('two processes approving different servers at the same moment, 100 times: no decision lost', async () => {
    const ws = scenario.workspace();
    const file = ws.approvals;
    const root = realpathSync(ws.cwd);
    const [one, two] = [new LineWorker('approve-worker.mjs', file), new LineWorker('approve-worker.mjs', file)];
    const started = Date.now();
    try {
      for (let round = 0; round < 100; round++) {
        const results = await Promise.all([
          one.ask({ id: `${round}`, root, server: `one-${round}`, hash: `hash-one-${round}`, status: 'approved' }),
          two.ask({ id: `${round}`, root, server: `two-${round}`, hash: `hash-two-${round}`, status: 'approved' }),
        ]);
        expect(results).toEqual([`done ${round}`, `done ${round}`]);
        const decisions = stored(file)[root]!;
        // Everything decided so far is there, this round's two included.
        expect(Object.keys(decisions), `after round ${round}`).toHaveLength(2 * (round + 1));
      }
    } finally {
      await Promise.all([one.stop(), two.stop()]);
    }
    const decisions = stored(file)[root]!;
    for (let round = 0; round < 100; round++) {
      expect(decisions[`one-${round}`]).toEqual({ hash: `hash-one-${round}`, status: 'approved' });
      expect(decisions[`two-${round}`]).toEqual({ hash: `hash-two-${round}`, status: 'approved' });
    }
    // Mode bits are POSIX's (decision 276): Windows has none to check.
    if (POSIX) expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(dirname(file)).filter((n) => n.startsWith(basename(file)) && n !== basename(file))).toEqual([]);
    report('concurrent approvals', { rounds: 100, writers: 2, decisions: Object.keys(decisions).length, ms: Date.now() - started });
  });

  it('two `mcp-live approvals approve` at the same moment, 5 times, with a session watching: all 10 connect', async () => {
    const w = scenario.workspace();
    const servers = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`p${i}`, tiny(`p${i}`)]));
    w.write(w.mcpJson, { mcpServers: servers });
    const c = scenario.start(w);
    await c.waitFor((e) => e.type === 'ready');
    const env = { ...process.env, HOME: w.home };
    for (let round = 0; round < 5; round++) {
      await Promise.all([
        run(process.execPath, [CLI, 'approvals', 'approve', `p${2 * round}`, '--cwd', w.cwd], { env }),
        run(process.execPath, [CLI, 'approvals', 'approve', `p${2 * round + 1}`, '--cwd', w.cwd], { env }),
      ]);
    }
    expect(Object.keys(stored(w.approvals)[realpathSync(w.cwd)]!)).toHaveLength(10);
    for (let i = 0; i < 10; i++) await c.waitForState(`p${i}`, 'connected');
  });

  it('a corrupt approvals file: approved servers count as undecided (never the reverse), a new decision backs it up', async () => {
    const w = scenario.workspace();
    w.write(w.mcpJson, { mcpServers: { p: tiny('p'), q: tiny('q') } });
    const c = scenario.start(w);
    await c.waitFor((e) => e.type === 'ready');
    let mark = c.events.length;
    c.send({ cmd: 'approve-all', id: 1 });
    await c.waitForState('p', 'connected', mark);
    await c.waitForState('q', 'connected', mark);
    const root = realpathSync(w.cwd);
    await markersWritten(w.approvals, root, ['p', 'q']);

    for (const garbage of ['{ "not": json', '[1, 2, 3]', '\u0000\u0001binary', '"approved"']) {
      mark = c.events.length;
      writeFileSync(w.approvals, garbage);
      const warn = await c.waitFor((e) => e.type === 'log' && e.level === 'warn' && /approvals:/.test(e.message as string), { from: mark });
      expect(warn.message).toMatch(/every gated server counts as undecided/);
      await c.waitFor((e) => e.type === 'server' && e.name === 'p' && e.reason === 'pending_approval', { from: mark });
      await c.waitFor((e) => e.type === 'approval-required', { from: mark });
      expect(c.servers().get('q')).toMatchObject({ state: 'blocked', reason: 'pending_approval' });

      // A decision now: the corrupt content is backed up first, never blindly overwritten.
      mark = c.events.length;
      c.send({ cmd: 'approve', server: 'p', id: `a-${garbage.length}` });
      await c.waitForState('p', 'connected', mark);
      const backups = readdirSync(dirname(w.approvals)).filter((n) => n.includes('.corrupt-'));
      expect(backups.map((n) => readFileSync(`${dirname(w.approvals)}/${n}`, 'utf8'))).toContain(garbage);
      await markersWritten(w.approvals, root, ['p']);
      expect(stored(w.approvals)[root]).toEqual({ p: { hash: approvalHash(tiny('p')), status: 'approved', pin: expect.stringMatching(/^[0-9a-f]{64}$/) as string } });
      if (POSIX) expect(statSync(w.approvals).mode & 0o777).toBe(0o600);
      c.send({ cmd: 'approve', server: 'q', id: `b-${garbage.length}` });
      await c.waitForState('q', 'connected', mark);
      await markersWritten(w.approvals, root, ['p', 'q']);
    }
  });

  it('a renamed server is asked again; renaming it back finds its decision', async () => {
    const w = scenario.workspace();
    const p = tiny('p', { startLog: w.startLog });
    w.write(w.mcpJson, { mcpServers: { p } });
    const c = scenario.start(w);
    await c.waitFor((e) => e.type === 'ready');
    let mark = c.events.length;
    c.send({ cmd: 'approve', server: 'p', id: 1 });
    await c.waitForState('p', 'connected', mark);

    mark = c.events.length;
    w.write(w.mcpJson, { mcpServers: { renamed: p } });
    const ask = await c.waitFor((e) => e.type === 'approval-required', { from: mark });
    expect(ask.servers).toMatchObject([{ name: 'renamed', scope: 'project', source: w.mcpJson }]);
    await c.waitFor((e) => e.type === 'reconcile', { from: mark });
    expect(c.servers().get('renamed')).toMatchObject({ state: 'blocked', reason: 'pending_approval' });
    expect(c.servers().get('p')).toMatchObject({ state: 'disconnected', reason: 'removed' });
    expect(w.starts()).toEqual(['p']);

    mark = c.events.length;
    w.write(w.mcpJson, { mcpServers: { p } });
    await c.waitForState('p', 'connected', mark);
    expect(c.events.slice(mark).filter((e) => e.type === 'approval-required')).toEqual([]);
    expect(w.starts()).toEqual(['p', 'p']);
  });

  it('a gated server moved into user settings by the user connects without approval', async () => {
    const w = scenario.workspace();
    w.write(w.mcpJson, { mcpServers: { p: tiny('p') } });
    const c = scenario.start(w);
    await c.waitFor((e) => e.type === 'ready');
    expect(c.servers().get('p')).toMatchObject({ reason: 'pending_approval' });

    const mark = c.events.length;
    w.write(w.userSettings, { mcpServers: { p: tiny('p') } });
    w.write(w.mcpJson, { mcpServers: {} });
    const up = await c.waitForState('p', 'connected', mark);
    expect(up).toMatchObject({ scope: 'user', source: w.userSettings });
    expect(existsSync(w.approvals), 'nothing was approved').toBe(false);
  });

  it('a same-named server appearing in .mcp.json does not inherit the user one: it waits for approval and never starts', async () => {
    const w = scenario.workspace();
    const log = `${w.root}/starts-shadow.log`;
    writeFileSync(log, '');
    w.write(w.userSettings, { mcpServers: { u: tiny('u') } });
    const c = scenario.start(w);
    await c.waitFor((e) => e.type === 'ready');
    const userPid = c.servers().get('u')!.pid as number;

    // The repository brings its own "u" (project wins by name): it must be approved itself.
    let mark = c.events.length;
    w.write(w.mcpJson, { mcpServers: { u: tiny('u', { startLog: log, rev: 'evil' }) } });
    const ask = await c.waitFor((e) => e.type === 'approval-required', { from: mark });
    expect(ask.servers).toMatchObject([{ name: 'u', scope: 'project', source: w.mcpJson }]);
    await c.waitFor((e) => e.type === 'server' && e.name === 'u' && e.reason === 'pending_approval', { from: mark });
    expect(c.servers().get('u')).toMatchObject({ state: 'blocked', scope: 'project' });
    await settleFor(500);
    expect(readFileSync(log, 'utf8')).toBe('');

    // The same config as the user's: still its own decision (none yet).
    mark = c.events.length;
    w.write(w.mcpJson, { mcpServers: { u: tiny('u') } });
    await c.waitFor((e) => e.type === 'reconcile', { from: mark });
    expect(c.servers().get('u')).toMatchObject({ state: 'blocked', reason: 'pending_approval' });

    // The repository drops it: the user's own server is back, without asking.
    mark = c.events.length;
    w.write(w.mcpJson, { mcpServers: {} });
    const back = await c.waitForState('u', 'connected', mark);
    expect(back).toMatchObject({ scope: 'user' });
    expect(back.pid).not.toBe(userPid);
    expect(readFileSync(log, 'utf8')).toBe('');
  });
});
