import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ReconcileEvent } from '../../src/model/report/events.js';
import { settleFor, Workspace, type CliSession, type Ev } from '../e2e/cliSession.js';
import { isAlive } from '../integration/processes.js';
import { linuxOnly, POSIX, posixOnly } from '../platforms.js';
import { report, rssOf, tiny, scenarioEachTest } from './kit.js';

/**
 * Broken, odd and hostile settings files against the built CLI (`--json`, real files, real
 * server processes). Each fault must raise a clear `settings-error` (or the entry's
 * `invalid_config`), keep the last good state (no server restarted or stopped), and leave the
 * session working: a good edit afterwards is applied.
 */

const scenario = scenarioEachTest();

const DEBOUNCE_WINDOW_MS = 100 + 400;

/** A `reconcile` event, typed. */
type Pass = Pick<ReconcileEvent, 'generation' | 'added' | 'removed' | 'reconnected' | 'updated' | 'blocked' | 'unchanged' | 'ms'>;
const passes = (c: CliSession, from: number): Pass[] => c.reconciles(from) as unknown as Pass[];
const nextPass = async (c: CliSession, from: number, what?: string): Promise<Pass> =>
  (await c.waitFor((e) => e.type === 'reconcile', { from, ...(what ? { what } : {}) })) as unknown as Pass;

/** The good content of the user settings; `rev` changes a view field, so each restore is a pass. */
function good(rev: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { ...extra, mcpServers: { a: { ...tiny('a'), description: `rev ${rev}` }, b: tiny('b') } };
}

interface Fault {
  name: string;
  /** Writes the fault; `rev` is the revision of the good content now in the file. */
  apply(w: Workspace, rev: number): void;
  /** What must be reported. */
  expect: { settingsError: RegExp } | { invalid: string; message: RegExp } | { nothing: true };
}

const deep = (levels: number) => `{"mcpServers": {}, "x": ${'['.repeat(levels)}${']'.repeat(levels)}}`;

/** A valid file of about `bytes`, all of it in a key nobody reads. */
const big = (bytes: number, rev = 0) => JSON.stringify({ ...good(rev), padding: 'x'.repeat(bytes) });

const FAULTS: Fault[] = [
  {
    name: 'a truncated write (half the file)',
    apply: (w) => w.write(w.userSettings, JSON.stringify(good(99), null, 2).slice(0, 120)),
    expect: { settingsError: /settings\.json:\d+:\d+: / },
  },
  {
    name: 'invalid JSON (a value missing)',
    apply: (w) => w.write(w.userSettings, '{ "mcpServers": { "a": { "command": } } }'),
    expect: { settingsError: /settings\.json:1:\d+: expected a value/ },
  },
  {
    name: 'an empty file (an editor between truncate and write)',
    apply: (w) => w.write(w.userSettings, ''),
    expect: { settingsError: /the file is empty/ },
  },
  {
    name: 'a top-level list',
    apply: (w) => w.write(w.userSettings, '[]'),
    expect: { settingsError: /top level must be a JSON object/ },
  },
  {
    name: 'mcpServers: []',
    apply: (w) => w.write(w.userSettings, { mcpServers: [] }),
    expect: { settingsError: /"mcpServers" must be an object of servers by name .*, found a list; keeping its last good value/ },
  },
  {
    name: 'mcp.allowed: "a"',
    apply: (w) => w.write(w.userSettings, good(0, { mcp: { allowed: 'a' } })),
    expect: { settingsError: /"mcp\.allowed" must be a list of server names/ },
  },
  {
    name: 'mcp.excluded: {"b": true}',
    apply: (w) => w.write(w.userSettings, good(0, { mcp: { excluded: { b: true } } })),
    expect: { settingsError: /"mcp\.excluded" must be a list of server names/ },
  },
  {
    name: 'args: "x" (one entry)',
    apply: (w) => w.write(w.userSettings, { mcpServers: { a: { ...tiny('a'), args: 'x' }, b: tiny('b') } }),
    expect: { invalid: 'a', message: /^invalid_config: args must be an array of strings$/ },
  },
  {
    name: 'an entry that is a number',
    apply: (w) => w.write(w.userSettings, { mcpServers: { ...(good(0).mcpServers as object), n: 5 } }),
    expect: { invalid: 'n', message: /^invalid_config: server config must be an object$/ },
  },
  {
    name: 'non-UTF-8 bytes',
    apply: (w) =>
      writeFileSync(w.userSettings, Buffer.concat([Buffer.from('{"mcpServers": {"a": {"command": "'), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from('"}}}')])),
    expect: { settingsError: /not UTF-8 text/ },
  },
  {
    name: 'binary garbage with NUL bytes',
    apply: (w) => writeFileSync(w.userSettings, Buffer.from([0, 1, 2, 0x7b, 0, 0x22])),
    expect: { settingsError: /settings\.json/ },
  },
  {
    name: 'nesting 100,000 levels deep',
    apply: (w) => w.write(w.userSettings, deep(100_000)),
    expect: { settingsError: /nested more than \d+ levels deep/ },
  },
  {
    name: 'a 3 MB file that does not parse (cut short)',
    apply: (w) => w.write(w.userSettings, big(3 * 1024 * 1024).slice(0, -3)),
    expect: { settingsError: /settings\.json:1:\d+: / },
  },
  {
    name: 'a valid 3 MB file, saved atomically (nothing relevant changed)',
    // The servers as they are (same rev): a pass here would be a pass for nothing.
    apply: (w, rev) => w.atomicWrite(w.userSettings, big(3 * 1024 * 1024, rev)),
    expect: { nothing: true },
  },
  {
    // Decision 59: at most 4 MiB is read, so a huge file can never exhaust memory.
    name: 'a valid 10 MB file, saved atomically',
    apply: (w) => w.atomicWrite(w.userSettings, big(10 * 1024 * 1024)),
    expect: { settingsError: /file too large \(\d+ bytes; settings files may be at most 4 MiB\)/ },
  },
];

/** Fails when any pass since `mark` touched a or b. */
function expectABUntouched(c: CliSession, mark: number, pids: Record<string, number>, except?: string): void {
  for (const r of passes(c, mark)) {
    const touched = [...r.removed, ...r.reconnected, ...r.blocked].filter((n) => n !== except);
    expect(touched, `pass ${r.generation} touched ${touched.join(', ')}`).toEqual([]);
  }
  for (const [name, pid] of Object.entries(pids)) {
    if (name === except) continue;
    expect(c.servers().get(name), name).toMatchObject({ state: 'connected', pid });
    expect(isAlive(pid), `${name} pid ${pid} alive`).toBe(true);
  }
}

describe('settings faults (built CLI, real files)', () => {
  linuxOnly('/proc memory figures').it(`user settings: ${FAULTS.length} faults, each reported, the last good state kept, the session going on`, async () => {
    const w = scenario.workspace();
    w.write(w.userSettings, good(0));
    const c = scenario.start(w);
    await c.waitFor((e) => e.type === 'ready', { what: 'ready' });
    const pids = { a: c.servers().get('a')!.pid as number, b: c.servers().get('b')!.pid as number };
    let rev = 0;
    const figures: Record<string, number> = {};

    for (const fault of FAULTS) {
      const mark = c.events.length;
      const started = Date.now();
      fault.apply(w, rev);
      const x = fault.expect;
      if ('settingsError' in x) {
        // A read in the middle of a (non-atomic) write may first report "the file is empty".
        const e = await c.waitFor((ev) => ev.type === 'settings-error' && x.settingsError.test(ev.error as string), {
          from: mark,
          what: `settings-error for ${fault.name}`,
        });
        expect(e.file, fault.name).toBe(w.userSettings);
        const others = c.events.slice(mark).filter((ev) => ev.type === 'settings-error' && !x.settingsError.test(ev.error as string));
        expect(others.map((ev) => ev.error as string).filter((m) => !/the file is empty/.test(m)), fault.name).toEqual([]);
        figures[fault.name] = Date.now() - started;
      } else if ('invalid' in x) {
        const e = await c.waitFor((ev) => ev.type === 'server' && ev.name === x.invalid && ev.state === 'error', {
          from: mark,
          what: `invalid_config for ${fault.name}`,
        });
        expect(e.error, fault.name).toMatch(x.message);
        figures[fault.name] = Date.now() - started;
      }
      await settleFor(DEBOUNCE_WINDOW_MS);
      if ('nothing' in x) {
        expect(c.events.slice(mark).filter((e) => e.type === 'settings-error' || e.type === 'reconcile'), fault.name).toEqual([]);
      }
      const except = 'invalid' in x ? x.invalid : undefined;
      expectABUntouched(c, mark, pids, except);

      // A good edit afterwards is applied: the session is alive and reading.
      rev += 1;
      const fix = c.events.length;
      w.write(w.userSettings, good(rev));
      const pass = await nextPass(c, fix, `the pass after ${fault.name}`);
      if (except === 'a') {
        expect(pass.added.concat(pass.reconnected), fault.name).toEqual(['a']);
        pids.a = c.servers().get('a')!.pid as number;
      } else {
        expect(pass.updated, fault.name).toEqual(['a']);
      }
      expect(c.servers().get('a')).toMatchObject({ state: 'connected', pid: pids.a });
      expect(c.servers().get('b')).toMatchObject({ state: 'connected', pid: pids.b });
    }
    expect(c.proc.exitCode).toBeNull();
    report('settings faults: ms from write to report', figures);
    report('settings faults: CLI RSS after the 10 MB file', { rss: rssOf(c.proc.pid) });
  });

  linuxOnly('/proc memory figures').it('1,000 servers in one file: one pass, 998 disabled blocked, the 2 real ones connected, one edit touches one', async () => {
    const w = scenario.workspace();
    const many = (rev: number): Record<string, unknown> => {
      const servers: Record<string, unknown> = { a: { ...tiny('a'), description: `rev ${rev}` }, b: tiny('b') };
      for (let i = 0; i < 998; i++) servers[`s${String(i).padStart(4, '0')}`] = { ...tiny(`s${i}`), disabled: true };
      return { mcpServers: servers };
    };
    w.write(w.userSettings, many(0));
    const started = Date.now();
    const c = scenario.start(w);
    const first = await nextPass(c, 0, 'first pass');
    const firstMs = Date.now() - started;
    expect(first.added.length + first.blocked.length).toBe(1000);
    expect(first.blocked).toHaveLength(998);
    expect(c.servers().get('s0500')).toMatchObject({ state: 'blocked', reason: 'disabled' });
    expect(w.starts()).toEqual([]);

    const mark = c.events.length;
    w.write(w.userSettings, many(1));
    const pass = await nextPass(c, mark);
    expect(pass).toMatchObject({ updated: ['a'], added: [], removed: [], reconnected: [], blocked: [], unchanged: 999 });
    report('1,000 servers', { firstPassWallMs: firstMs, editPassMs: pass.ms, cliRss: rssOf(c.proc.pid) });
  });

  it('a directory where the file should be: at start and during the session', async () => {
    const w = scenario.workspace();
    mkdirSync(w.userSettings, { recursive: true });
    w.write(join(w.root, 'cli.json'), { mcpServers: { k: tiny('k') } });
    const c = scenario.start(w, ['--mcp-config', join(w.root, 'cli.json')]);
    const e = await c.waitFor((ev) => ev.type === 'settings-error', { what: 'settings-error for the directory' });
    expect(e).toMatchObject({ file: w.userSettings });
    expect(e.error).toMatch(/is a directory, expected a file/);
    await c.waitFor((ev) => ev.type === 'ready');
    // User settings never read: admission fails closed (decision 51), the other sources' servers wait.
    expect(c.servers().get('k')).toMatchObject({ state: 'blocked', reason: 'settings_error' });

    // The directory goes, a file comes: every server connects.
    let mark = c.events.length;
    rmSync(w.userSettings, { recursive: true });
    w.write(w.userSettings, good(0));
    await c.waitForState('a', 'connected', mark);
    await c.waitForState('k', 'connected', mark);
    const pids = { a: c.servers().get('a')!.pid as number, b: c.servers().get('b')!.pid as number, k: c.servers().get('k')!.pid as number };

    // File → directory during the session: reported; the session goes on.
    mark = c.events.length;
    rmSync(w.userSettings);
    mkdirSync(w.userSettings);
    const again = await c.waitFor((ev) => ev.type === 'settings-error', { from: mark, what: 'directory reported' });
    expect(again.error).toMatch(/is a directory, expected a file/);
    await settleFor(DEBOUNCE_WINDOW_MS);
    // (Whether a and b went: the file was missing for a moment, which is an empty source.)
    expect(c.servers().get('k')).toMatchObject({ state: 'connected', pid: pids.k });

    mark = c.events.length;
    rmSync(w.userSettings, { recursive: true });
    w.write(w.userSettings, good(5));
    await c.waitFor((ev) => ev.type === 'reconcile', { from: mark });
    await c.waitForState('a', 'connected');
    expect(c.servers().get('b')?.state).toBe('connected');
    expect(c.servers().get('k')).toMatchObject({ state: 'connected', pid: pids.k });
  });

  posixOnly('mode bits, uids').it('permission denied: reported through the read seam, since root reads a 0o000 file anyway', async () => {
    // The in-process variant with an EACCES read lives in test/streams/readFaults.test.ts (fast
    // suite). Here: what chmod 000 does on this machine, so docs/reliability.md says the truth.
    const w = scenario.workspace();
    w.write(w.userSettings, good(0));
    const c = scenario.start(w);
    await c.waitFor((e) => e.type === 'ready');
    const mark = c.events.length;
    chmodSync(w.userSettings, 0o000);
    let readable = true;
    try {
      readFileSync(w.userSettings);
    } catch {
      readable = false;
    }
    if (readable) {
      // root (CAP_DAC_OVERRIDE): the file is read despite its mode, and an edit applies.
      expect(process.getuid?.()).toBe(0);
      writeFileSync(w.userSettings, JSON.stringify(good(1)));
      const pass = await c.waitFor((e) => e.type === 'reconcile', { from: mark });
      expect(pass.updated).toEqual(['a']);
    } else {
      // chmod is an attribute change the watcher reports; the read is denied.
      const e = await c.waitFor((ev) => ev.type === 'settings-error', { from: mark });
      expect(e.error).toMatch(/permission denied/);
      await settleFor(DEBOUNCE_WINDOW_MS);
      expect(c.servers().get('a')?.state).toBe('connected');
    }
    chmodSync(w.userSettings, 0o644);
    report('permission denied', { uid: process.getuid?.(), chmod000Readable: readable });
  });

  posixOnly('symlinks').it('a symlinked settings file: edits of the target (in place and atomic) are seen; a dangling link is a missing file', async () => {
    const w = scenario.workspace();
    const dotfiles = join(w.root, 'dotfiles');
    const target = join(dotfiles, 'qwen-settings.json');
    w.write(target, good(0));
    symlinkSync(target, w.userSettings);
    const c = scenario.start(w);
    await c.waitFor((e) => e.type === 'ready');
    expect(c.servers().get('a')?.state).toBe('connected');

    let mark = c.events.length;
    writeFileSync(target, JSON.stringify(good(1)));
    let pass = await c.waitFor((e) => e.type === 'reconcile', { from: mark, what: 'in-place edit of the link target' });
    expect(pass.updated).toEqual(['a']);

    mark = c.events.length;
    writeFileSync(`${target}.tmp`, JSON.stringify(good(2)));
    renameSync(`${target}.tmp`, target);
    pass = await c.waitFor((e) => e.type === 'reconcile', { from: mark, what: 'atomic save of the link target' });
    expect(pass.updated).toEqual(['a']);

    mark = c.events.length;
    writeFileSync(target, '{ broken');
    const e = await c.waitFor((ev) => ev.type === 'settings-error', { from: mark });
    expect(e.file).toBe(w.userSettings);

    // Point the link elsewhere (the way dotfile managers switch profiles).
    mark = c.events.length;
    const other = join(dotfiles, 'other.json');
    w.write(other, { mcpServers: { b: tiny('b') } });
    rmSync(w.userSettings);
    symlinkSync(other, w.userSettings);
    pass = await c.waitFor((e2) => e2.type === 'reconcile', { from: mark, what: 'relinked' });
    expect(pass.removed).toEqual(['a']);
  });

  posixOnly('symlinks').it('a symlinked workspace: approvals keyed by its real path, edits through either path seen', async () => {
    const w = scenario.workspace();
    const link = join(w.root, 'link-to-project');
    symlinkSync(w.cwd, link);
    w.write(w.mcpJson, { mcpServers: { p: tiny('p') } });
    w.write(w.workspaceSettings, { mcpServers: {} });
    const c = scenario.start(w, ['--cwd', link]);
    await c.waitFor((e) => e.type === 'approval-required');
    await c.waitFor((e) => e.type === 'ready');
    expect(c.servers().get('p')).toMatchObject({ reason: 'pending_approval', source: join(link, '.mcp.json') });

    // Approve from another process that names the real path: the running session connects it.
    const mark = c.events.length;
    const { execFileSync } = await import('node:child_process');
    const { CLI } = await import('../e2e/cliSession.js');
    execFileSync(process.execPath, [CLI, 'approvals', 'approve', 'p', '--cwd', w.cwd], { env: { ...process.env, HOME: w.home } });
    await c.waitForState('p', 'connected', mark);
    const stored = JSON.parse(readFileSync(w.approvals, 'utf8')) as Record<string, unknown>;
    expect(Object.keys(stored)).toEqual([w.cwd]);

    // A workspace edit through the real path is seen by the session watching the link.
    const m2 = c.events.length;
    w.write(w.workspaceSettings, { mcp: { excluded: ['p'] } });
    await c.waitFor((e) => e.type === 'server' && e.name === 'p' && e.reason === 'excluded', { from: m2 });
  });

  it('the settings file deleted while running: its servers go (a missing file is an empty source), and come back', async () => {
    const w = scenario.workspace();
    w.write(w.userSettings, good(0));
    w.write(join(w.root, 'cli.json'), { mcpServers: { k: tiny('k') } });
    const c = scenario.start(w, ['--mcp-config', join(w.root, 'cli.json')]);
    await c.waitFor((e) => e.type === 'ready');
    const kPid = c.servers().get('k')!.pid as number;
    const aPid = c.servers().get('a')!.pid as number;

    let mark = c.events.length;
    rmSync(w.userSettings);
    const pass = await nextPass(c, mark);
    expect(pass.removed.sort()).toEqual(['a', 'b']);
    expect(c.events.slice(mark).filter((e) => e.type === 'settings-error')).toEqual([]);
    expect(isAlive(aPid)).toBe(false);
    expect(c.servers().get('k')).toMatchObject({ state: 'connected', pid: kPid });

    mark = c.events.length;
    w.write(w.userSettings, good(0));
    const back = await nextPass(c, mark);
    expect(back.added.sort()).toEqual(['a', 'b']);
    expect(c.servers().get('k')).toMatchObject({ state: 'connected', pid: kPid });
  });

  it('the workspace .qwen directory removed and re-created: an approved workspace server goes and comes back without asking', async () => {
    const w = scenario.workspace();
    const workspace = { mcpServers: { ws1: tiny('ws1') } };
    w.write(w.workspaceSettings, workspace);
    w.write(w.userSettings, good(0));
    const c = scenario.start(w);
    await c.waitFor((e) => e.type === 'ready');
    let mark = c.events.length;
    c.send({ cmd: 'approve', server: 'ws1', id: 1 });
    await c.waitForState('ws1', 'connected', mark);
    // The approval's own pass reports after its connect settled: wait for it, so the removal's
    // pass is the next reconcile event (it came after the mark once on a loaded machine).
    await c.waitFor((e) => e.type === 'reconcile' && e.trigger === 'approval', { from: mark, what: 'the approval pass' });
    const aPid = c.servers().get('a')!.pid as number;

    for (let round = 0; round < 3; round++) {
      mark = c.events.length;
      rmSync(join(w.cwd, '.qwen'), { recursive: true });
      const gone = await c.waitFor((e) => e.type === 'reconcile', { from: mark, what: `.qwen removed (round ${round})` });
      expect(gone.removed).toEqual(['ws1']);
      mark = c.events.length;
      w.write(w.workspaceSettings, workspace);
      await c.waitForState('ws1', 'connected', mark);
      // Its pass reports after the connect settled: waited for, so the next removal's pass is
      // the next reconcile event.
      await c.waitFor((e) => e.type === 'reconcile' && (e.added as string[]).includes('ws1'), { from: mark, what: `ws1 back (round ${round})` });
      expect(c.events.slice(mark).filter((e: Ev) => e.type === 'approval-required')).toEqual([]);
    }
    expect(c.servers().get('a')).toMatchObject({ state: 'connected', pid: aPid });
    // Mode bits are POSIX's (decision 276): Windows has none to check.
    if (POSIX) expect(statSync(w.approvals).mode & 0o777).toBe(0o600);
  });
});
