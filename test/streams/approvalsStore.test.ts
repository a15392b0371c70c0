import { spawn } from 'node:child_process';
import { chmod, lstat, mkdir, readFile, readdir, stat, symlink, truncate, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeEach, describe, expect, it } from 'vitest';
import type { ApprovalRecord, ApprovalsStore } from '../../src/model/types.js';
import { createApprovalsStore, projectRoot } from '../../src/sinks/stores/approvalsStore.js';
import { writeOwnedFile } from '../../src/files/writeOwnedFile.js';
import { fromApprovals } from '../../src/streams/fromApprovals.js';
import { posixOnly } from '../platforms.js';
import { mkfifo, settlesWithin } from './specialFileKit.js';
import { record, waitFor, tempDirEachTest } from './streamTestKit.js';

const repo = fileURLToPath(new URL('../..', import.meta.url));

/** Runs `node ...args` in `cwd`; rejects with its stderr unless it exits 0. */
function execNode(args: string[], cwd: string): Promise<void> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', fail);
    child.on('exit', (code) => (code === 0 ? done() : fail(new Error(`node ${args[0]} exited ${code}: ${stderr}`))));
  });
}
const approved = (hash: string): ApprovalRecord => ({ hash, status: 'approved' });
const rejected = (hash: string): ApprovalRecord => ({ hash, status: 'rejected' });
const P = '/work/project';

describe('approvals store', () => {
  const tmp = tempDirEachTest('.qwen/mcpApprovals.json');

  const stored = async (): Promise<unknown> => JSON.parse(await readFile(tmp.file, 'utf8')) as unknown;

  it('round-trips decisions per project root, and forgets them', async () => {
    const store = createApprovalsStore(tmp.file);
    expect(await store.read(P)).toEqual({ decisions: {} });

    await store.decide(P, 'fs', approved('h1'));
    await store.decide(P, 'web', rejected('h2'));
    await store.decide('/other', 'fs', rejected('h3'));
    expect((await store.read(P)).decisions).toEqual({ fs: approved('h1'), web: rejected('h2') });
    expect((await store.read('/other')).decisions).toEqual({ fs: rejected('h3') });
    expect(await store.read(P)).not.toHaveProperty('warning');

    await store.decide(P, 'fs', approved('h4'));
    await store.decide(P, 'web', undefined);
    expect((await store.read(P)).decisions).toEqual({ fs: approved('h4') });
    await store.decide(P, 'fs', undefined);
    expect(await stored()).toEqual({ '/other': { fs: rejected('h3') } });
  });

  it("records the digest of an approval's pin only while it is that approval, replaces it, and reads it back (decisions 309, 315)", async () => {
    const D1 = 'a'.repeat(64);
    const D2 = 'b'.repeat(64);
    const store = createApprovalsStore(tmp.file);
    await store.decide(P, 'fs', approved('h1'));
    await store.decide(P, 'web', rejected('h2'));
    await store.markPinned!(P, 'fs', 'h1', D1);
    // Another hash, a rejection, an unknown server: nothing changes.
    await store.markPinned!(P, 'fs', 'h0', D2);
    await store.markPinned!(P, 'web', 'h2', D2);
    await store.markPinned!(P, 'nope', 'h1', D2);
    expect(await stored()).toEqual({ [P]: { fs: { hash: 'h1', status: 'approved', pin: D1 }, web: rejected('h2') } });
    expect((await store.read(P)).decisions).toEqual({ fs: { hash: 'h1', status: 'approved', pin: D1 }, web: rejected('h2') });
    // The same approval again (`mcp-live approvals approve`) keeps it.
    await store.decide(P, 'fs', approved('h1'));
    expect((await store.read(P)).decisions.fs).toEqual({ hash: 'h1', status: 'approved', pin: D1 });
    // An approved change of its surface records the new pin's digest.
    await store.markPinned!(P, 'fs', 'h1', D2);
    expect((await store.read(P)).decisions.fs).toEqual({ hash: 'h1', status: 'approved', pin: D2 });
    // Only a digest is recorded.
    await expect(store.markPinned!(P, 'fs', 'h1', 'yes')).rejects.toThrow(/digest/);
    // A new decision for the server has no marker: its surface is pinned anew.
    await store.decide(P, 'fs', approved('h3'));
    expect((await store.read(P)).decisions.fs).toEqual(approved('h3'));
  });

  it('reads a marker that is not a digest, or the `pinned: true` of an unshipped version, as a malformed record, never as an approval', async () => {
    await mkdir(dirname(tmp.file), { recursive: true });
    const records = {
      yes: { hash: 'h1', status: 'approved', pin: 'yes' },
      upper: { hash: 'h1', status: 'approved', pin: 'A'.repeat(64) },
      flag: { hash: 'h1', status: 'approved', pinned: true },
      fine: { hash: 'h1', status: 'approved', pin: 'c'.repeat(64) },
    };
    await writeFile(tmp.file, JSON.stringify({ [P]: records }));
    const read = await createApprovalsStore(tmp.file).read(P);
    expect(read.decisions).toEqual({ fine: records.fine });
    expect(read.warning).toContain('"yes", "upper", "flag"');
  });

  posixOnly('mode bits').it('writes the file with mode 0600, also over a wider existing file', async () => {
    await mkdir(dirname(tmp.file), { recursive: true });
    await writeFile(tmp.file, '{}');
    await chmod(tmp.file, 0o644);
    await createApprovalsStore(tmp.file).decide(P, 'fs', approved('h'));
    expect((await stat(tmp.file)).mode & 0o777).toBe(0o600);
  });

  it('loses no decision when two stores in this process decide 20 servers each at once', async () => {
    const a = createApprovalsStore(tmp.file);
    const b = createApprovalsStore(tmp.file);
    await Promise.all(
      Array.from({ length: 20 }, (_, i) => [
        a.decide(P, `a-${i}`, approved(`ha${i}`)),
        b.decide(P, `b-${i}`, rejected(`hb${i}`)),
      ]).flat(),
    );
    const { decisions, warning } = await a.read(P);
    expect(warning).toBeUndefined();
    expect(Object.keys(decisions).sort()).toEqual(
      [...Array.from({ length: 20 }, (_, i) => `a-${i}`), ...Array.from({ length: 20 }, (_, i) => `b-${i}`)].sort(),
    );
    expect(decisions['b-7']).toEqual(rejected('hb7'));
    // No lock directory or temp file left behind.
    expect(await readdir(dirname(tmp.file))).toEqual(['mcpApprovals.json']);
  });

  it('loses no decision when two processes decide at the same moment', async () => {
    // The children run this very module, transpiled by TypeScript in a plain node process
    // (they cannot load .ts themselves, and loading the compiler inside the test runner is slow).
    const build = tmp.path('child');
    await execNode(
      [
        '-e',
        `const ts = require('typescript'), fs = require('node:fs'), path = require('node:path');
const [repo, out, ...files] = process.argv.slice(1);
for (const file of files) {
  const { outputText } = ts.transpileModule(fs.readFileSync(path.join(repo, file), 'utf8'), {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  });
  const target = path.join(out, file.replace(/\\.ts$/, '.js'));
  fs.mkdirSync(path.dirname(target), { recursive: true });
  fs.writeFileSync(target, outputText);
}`,
        repo,
        build,
        'src/sinks/stores/approvalsStore.ts',
        'src/platform/systemPathKeys.ts',
        'src/model/pathKeys.ts',
        'src/sinks/stores/ownedJsonFile.ts',
        'src/files/writeOwnedFile.ts',
        'src/platform/renameRetry.ts',
        'src/model/ownProperties.ts',
        'src/files/readJsonc.ts',
        'src/model/settings/parseJsonc.ts',
        'src/files/readRegularFile.ts',
      ],
      repo,
    );
    await writeFile(join(build, 'package.json'), '{ "type": "module" }');
    await symlink(join(repo, 'node_modules'), join(build, 'node_modules'), 'dir');
    const worker = join(build, 'worker.js');
    await writeFile(
      worker,
      `import { createApprovalsStore } from './src/sinks/stores/approvalsStore.js';
const [file, root, prefix, count, startAt] = process.argv.slice(2);
const store = createApprovalsStore(file);
while (Date.now() < Number(startAt)) await new Promise((done) => setTimeout(done, 1));
// One after the other: every decision is its own locked read-modify-write.
for (let i = 0; i < Number(count); i++) {
  await store.decide(root, prefix + '-' + i, { hash: prefix + i, status: 'approved' });
}
`,
    );
    const startAt = Date.now() + 400;
    const run = (prefix: string): Promise<void> => execNode([worker, tmp.file, P, prefix, '15', String(startAt)], build);
    await Promise.all([run('p'), run('q')]);
    const { decisions } = await createApprovalsStore(tmp.file).read(P);
    expect(Object.keys(decisions)).toHaveLength(30);
    expect(decisions['q-14']).toEqual(approved('q14'));
  });

  posixOnly('mode bits').it('reads a corrupt file as no decisions with a warning, and backs it up before the first write', async () => {
    const corrupt = `{ "${P}": { "fs": { "hash": "h1", "status": "approved" } }`; // truncated
    await mkdir(dirname(tmp.file), { recursive: true });
    await writeFile(tmp.file, corrupt);
    const store = createApprovalsStore(tmp.file, { now: () => new Date('2026-01-02T03:04:05.678Z') });

    const read = await store.read(P);
    expect(read.decisions).toEqual({});
    expect(read.warning).toMatch(/mcpApprovals\.json: not valid JSON .*; every gated server counts as undecided$/);

    await store.decide(P, 'web', approved('h2'));
    const backup = `${tmp.file}.corrupt-2026-01-02T03-04-05-678Z.bak`;
    expect(await readFile(backup, 'utf8')).toBe(corrupt);
    expect((await stat(backup)).mode & 0o777).toBe(0o600);
    expect(await store.read(P)).toEqual({ decisions: { web: approved('h2') } });
  });

  it.each([
    ['a list', '[{ "fs": { "hash": "h", "status": "approved" } }]', /the top level is a list, not an object/],
    ['null', 'null', /the top level is null, not an object/],
    ['a string', '"approved"', /the top level is string, not an object/],
  ])('reads a top level that is %s as no decisions, and backs it up before writing', async (_name, content, warning) => {
    await mkdir(dirname(tmp.file), { recursive: true });
    await writeFile(tmp.file, content);
    const store = createApprovalsStore(tmp.file, { now: () => new Date(0) });
    const read = await store.read(P);
    expect(read.decisions).toEqual({});
    expect(read.warning).toMatch(warning);
    await store.decide(P, 'x', rejected('h'));
    expect(await readFile(`${tmp.file}.corrupt-1970-01-01T00-00-00-000Z.bak`, 'utf8')).toBe(content);
    expect(await stored()).toEqual({ [P]: { x: rejected('h') } });
  });

  it('reads a project entry that is not an object as no decisions, backs up before replacing it, keeps other projects', async () => {
    const content = JSON.stringify({ [P]: 'approved', '/other': { fs: approved('h') } });
    await mkdir(dirname(tmp.file), { recursive: true });
    await writeFile(tmp.file, content);
    const store = createApprovalsStore(tmp.file, { now: () => new Date(0) });
    expect(await store.read(P)).toEqual({ decisions: {}, warning: `${tmp.file}: the entry for ${P} is not an object; its servers count as undecided` });
    expect(await store.read('/other')).toEqual({ decisions: { fs: approved('h') } });
    await store.decide(P, 'web', approved('h2'));
    expect(await readFile(`${tmp.file}.corrupt-1970-01-01T00-00-00-000Z.bak`, 'utf8')).toBe(content);
    expect(await stored()).toEqual({ [P]: { web: approved('h2') }, '/other': { fs: approved('h') } });
  });

  it('ignores malformed records (never as approvals), names them, and leaves them alone when writing others', async () => {
    const records = {
      ok: approved('h'),
      numberHash: { hash: 5, status: 'approved' },
      shouting: { hash: 'h', status: 'APPROVED' },
      bare: 'approved',
      empty: { hash: '', status: 'approved' },
      noHash: { status: 'approved' },
    };
    await mkdir(dirname(tmp.file), { recursive: true });
    await writeFile(tmp.file, JSON.stringify({ [P]: records }));
    const store = createApprovalsStore(tmp.file);
    const read = await store.read(P);
    expect(read.decisions).toEqual({ ok: approved('h') });
    expect(read.warning).toBe(
      `${tmp.file}: ignored malformed decisions for "numberHash", "shouting", "bare", "empty", "noHash" in ${P}; they count as undecided`,
    );
    await store.decide(P, 'new', rejected('n'));
    expect(await stored()).toEqual({ [P]: { ...records, new: rejected('n') } });
    expect((await readdir(dirname(tmp.file))).filter((name) => name.endsWith('.bak'))).toEqual([]);
  });

  it('stores a server named __proto__ (and does not invent "constructor")', async () => {
    const store = createApprovalsStore(tmp.file);
    await store.decide(P, '__proto__', approved('hp'));
    await store.decide('__proto__', 'fs', rejected('hr'));
    const { decisions } = await store.read(P);
    expect(Object.keys(decisions)).toEqual(['__proto__']);
    expect(Object.getOwnPropertyDescriptor(decisions, '__proto__')?.value).toEqual(approved('hp'));
    expect(Object.hasOwn(decisions, 'constructor')).toBe(false);
    expect(Object.keys((await store.read('__proto__')).decisions)).toEqual(['fs']);
    expect(({} as Record<string, unknown>).hash).toBeUndefined();
    await store.decide(P, '__proto__', undefined);
    expect(Object.keys((await store.read(P)).decisions)).toEqual([]);
  });

  it('keys by the realpath of the workspace', async () => {
    const real = tmp.path('real');
    await mkdir(real);
    await symlink(real, tmp.path('link'), 'dir');
    expect(projectRoot(tmp.path('link'))).toBe(projectRoot(real));
  });
});

describe('fromApprovals (real chokidar)', () => {
  const tmp = tempDirEachTest();

  it('sees a decision written by another store instance, and a corrupt file as no decisions', async () => {
    const file = tmp.path('mcpApprovals.json');
    const decisions = record(fromApprovals(file, P, { store: createApprovalsStore(file) }));
    try {
      await waitFor('the first read', () => decisions.values.length === 1);
      expect(decisions.values[0]).toEqual({ decisions: {} });

      await createApprovalsStore(file).decide(P, 'fs', approved('h1'));
      await waitFor('the approval of fs', () => decisions.values.at(-1)?.decisions.fs?.status === 'approved');

      // Rewriting the same decisions is not a change.
      await createApprovalsStore(file).decide('/other', 'x', approved('h'));
      await createApprovalsStore(file).decide(P, 'web', rejected('h2'));
      await waitFor('the rejection of web', () => decisions.values.at(-1)?.decisions.web?.status === 'rejected');
      expect(decisions.values).toHaveLength(3);

      await writeFile(file, '{ "broken": ');
      await waitFor('the warning', () => decisions.values.at(-1)?.warning !== undefined);
      expect(decisions.values.at(-1)?.decisions).toEqual({});
    } finally {
      decisions.subscription.unsubscribe();
    }
  });
});

posixOnly('mkfifo, /dev/zero, symlinks, uids').describe('approvals store: special files, links and other owners (decisions 59 and 60)', () => {
  const tmp = tempDirEachTest('.qwen/mcpApprovals.json');
  beforeEach(async () => {
    await mkdir(tmp.path('.qwen'));
  });

  // Read when the tests are collected, also where they skip (no uids on Windows).
  const me = process.getuid?.() ?? -1;
  const approvalsOf = (server: string, hash: string): string => JSON.stringify({ [P]: { [server]: approved(hash) } });
  /** Everything in .qwen but the approvals file: no lock, temp file or backup may be left. */
  const leftovers = async (): Promise<string[]> => (await readdir(dirname(tmp.file))).filter((name) => name !== 'mcpApprovals.json');

  it('reads a FIFO as no decisions with a warning, promptly, and refuses to write it', async () => {
    mkfifo(tmp.file);
    const store = createApprovalsStore(tmp.file);
    const read = await settlesWithin(store.read(P), 3000, tmp.file);
    expect(read).toEqual({
      decisions: {},
      warning: `${tmp.file}: is a FIFO (named pipe), not a regular file; every gated server counts as undecided`,
    });
    await expect(settlesWithin(store.decide(P, 'x', approved('h')), 3000, tmp.file)).rejects.toThrow(
      `refusing to write ${tmp.file}: it is a FIFO (named pipe), not a regular file; mcp-live writes only regular files it owns`,
    );
    expect((await lstat(tmp.file)).isFIFO()).toBe(true);
    expect(await leftovers()).toEqual([]);
  });

  it('reads a symlink to /dev/zero as no decisions with a warning, promptly', async () => {
    await symlink('/dev/zero', tmp.file);
    const read = await settlesWithin(createApprovalsStore(tmp.file).read(P), 3000);
    expect(read).toEqual({
      decisions: {},
      warning: `${tmp.file}: links to /dev/zero, which is a character device, not a regular file; every gated server counts as undecided`,
    });
  });

  it('refuses to write through a symlink: the target keeps its content and mode, nothing is approved', async () => {
    const victim = tmp.path('victim.rc');
    await writeFile(victim, 'export PATH=/usr/bin\n');
    await chmod(victim, 0o644);
    await symlink(victim, tmp.file);
    const store = createApprovalsStore(tmp.file);
    await expect(store.decide(P, 'x', approved('h'))).rejects.toThrow(
      `refusing to write ${tmp.file}: it is a symbolic link (to ${victim}); mcp-live writes only regular files it owns`,
    );
    expect(await readFile(victim, 'utf8')).toBe('export PATH=/usr/bin\n');
    expect((await stat(victim)).mode & 0o777).toBe(0o644);
    expect((await lstat(tmp.file)).isSymbolicLink()).toBe(true);
    expect((await store.read(P)).decisions).toEqual({});
    // Not even a backup of the "corrupt" target beside it.
    expect(await leftovers()).toEqual([]);
    await expect(store.decideAll(P, [{ server: 'y', record: approved('h') }])).rejects.toThrow(/it is a symbolic link/);
    expect(await readFile(victim, 'utf8')).toBe('export PATH=/usr/bin\n');
  });

  it('reads through a symlink the user made (a dotfile manager), but still refuses to write it', async () => {
    const target = tmp.path('dotfiles-approvals.json');
    await writeFile(target, approvalsOf('fs', 'h1'));
    await symlink(target, tmp.file);
    const store = createApprovalsStore(tmp.file);
    expect(await store.read(P)).toEqual({ decisions: { fs: approved('h1') } });
    await expect(store.decide(P, 'web', approved('h2'))).rejects.toThrow(/it is a symbolic link/);
    expect(await readFile(target, 'utf8')).toBe(approvalsOf('fs', 'h1'));
  });

  it('neither trusts nor writes a file owned by another uid', async () => {
    await writeFile(tmp.file, approvalsOf('fs', 'h1'));
    // The file is ours (uid `me`); a store for another user sees a foreign file. (chown would
    // need root; this runs the same lstat/fstat checks on a real file either way.)
    const other = me + 12345;
    const store = createApprovalsStore(tmp.file, { ownerUid: other });
    expect(await store.read(P)).toEqual({
      decisions: {},
      warning: `${tmp.file}: is owned by uid ${me}, not by you (uid ${other}); every gated server counts as undecided`,
    });
    await expect(store.decide(P, 'web', approved('h2'))).rejects.toThrow(
      `refusing to write ${tmp.file}: it is owned by uid ${me}, not you (uid ${other}); mcp-live writes only regular files it owns`,
    );
    expect(await readFile(tmp.file, 'utf8')).toBe(approvalsOf('fs', 'h1'));
    expect(await leftovers()).toEqual([]);
    // The owner itself is fine.
    expect(await createApprovalsStore(tmp.file, { ownerUid: me }).read(P)).toEqual({ decisions: { fs: approved('h1') } });
  });

  it('refuses a backup name that is a planted symlink, and then writes nothing', async () => {
    const corrupt = '{ "broken": ';
    await writeFile(tmp.file, corrupt);
    const victim = tmp.path('victim.rc');
    await writeFile(victim, 'keep me\n');
    const backup = `${tmp.file}.corrupt-1970-01-01T00-00-00-000Z.bak`;
    await symlink(victim, backup);
    const store = createApprovalsStore(tmp.file, { now: () => new Date(0) });
    await expect(store.decide(P, 'x', approved('h'))).rejects.toThrow(
      `refusing to write ${backup}: it is a symbolic link (to ${victim}); mcp-live writes only regular files it owns`,
    );
    expect(await readFile(victim, 'utf8')).toBe('keep me\n');
    expect(await readFile(tmp.file, 'utf8')).toBe(corrupt);
  });

  it('refuses a file over 4 MiB when deciding, and reads it as no decisions', async () => {
    await writeFile(tmp.file, '');
    await truncate(tmp.file, 5 * 1024 * 1024);
    const store = createApprovalsStore(tmp.file);
    expect((await store.read(P)).warning).toBe(
      `${tmp.file}: file too large (5242880 bytes; settings files may be at most 4 MiB); every gated server counts as undecided`,
    );
    await expect(store.decide(P, 'x', approved('h'))).rejects.toMatchObject({ code: 'EFBIG' });
    expect((await stat(tmp.file)).size).toBe(5 * 1024 * 1024);
  });
});

describe('approvals store: decideAll (decision 60)', () => {
  const tmp = tempDirEachTest('mcpApprovals.json');

  /** A store whose every write of the approvals file (not backups) is counted. */
  function countingStore(): { store: ApprovalsStore; writes: () => number } {
    let writes = 0;
    const store = createApprovalsStore(tmp.file, {
      writeFile: async (path, text, options) => {
        await writeOwnedFile(path, text, options);
        if (path === tmp.file) writes += 1;
      },
    });
    return { store, writes: () => writes };
  }

  it('stores 500 decisions with one write', async () => {
    const { store, writes } = countingStore();
    // The counter sees every write: three decisions one after another are three writes.
    for (const name of ['s1', 's2', 's3']) await store.decide(P, name, approved(`h-${name}`));
    expect(writes()).toBe(3);

    const decisions = Array.from({ length: 500 }, (_, i) => ({ server: `server-${i}`, record: approved(`hash-${i}`) }));
    await store.decideAll(P, decisions);
    expect(writes()).toBe(4);
    const stored = JSON.parse(await readFile(tmp.file, 'utf8')) as Record<string, Record<string, ApprovalRecord>>;
    expect(Object.keys(stored[P]!)).toHaveLength(503);
    expect(stored[P]!['server-0']).toEqual(approved('hash-0'));
    expect(stored[P]!['server-499']).toEqual(approved('hash-499'));
    expect(stored[P]!.s2).toEqual(approved('h-s2'));
  });

  it('keeps the list in one write while another write is running, and forgets with undefined', async () => {
    const { store, writes } = countingStore();
    const first = store.decide(P, 'early', approved('e'));
    const all = store.decideAll(P, [
      { server: 'a', record: rejected('ha') },
      { server: 'early', record: undefined },
    ]);
    await Promise.all([first, all]);
    expect(writes()).toBe(2);
    expect((await store.read(P)).decisions).toEqual({ a: rejected('ha') });
    await store.decideAll(P, []);
    expect(writes()).toBe(2);
  });
});
