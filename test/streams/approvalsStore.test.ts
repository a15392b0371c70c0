import { spawn } from 'node:child_process';
import { chmod, mkdir, readFile, readdir, stat, symlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ApprovalRecord } from '../../src/model/types.js';
import { createApprovalsStore, projectRoot } from '../../src/sinks/approvalsStore.js';
import { fromApprovals } from '../../src/streams/fromApprovals.js';
import { makeTempDir, record, removeDir, waitFor } from './streamTestKit.js';

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
  let dir: string;
  let file: string;
  beforeEach(async () => {
    dir = await makeTempDir();
    file = join(dir, '.qwen', 'mcpApprovals.json');
  });
  afterEach(async () => {
    await removeDir(dir);
  });

  const stored = async (): Promise<unknown> => JSON.parse(await readFile(file, 'utf8')) as unknown;

  it('round-trips decisions per project root, and forgets them', async () => {
    const store = createApprovalsStore(file);
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

  it('writes the file with mode 0600, also over a wider existing file', async () => {
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, '{}');
    await chmod(file, 0o644);
    await createApprovalsStore(file).decide(P, 'fs', approved('h'));
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });

  it('loses no decision when two stores in this process decide 20 servers each at once', async () => {
    const a = createApprovalsStore(file);
    const b = createApprovalsStore(file);
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
    expect(await readdir(dirname(file))).toEqual(['mcpApprovals.json']);
  });

  it('loses no decision when two processes decide at the same moment', async () => {
    // The children run this very module, transpiled by TypeScript in a plain node process
    // (they cannot load .ts themselves, and loading the compiler inside the test runner is slow).
    const build = join(dir, 'child');
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
        'src/sinks/approvalsStore.ts',
        'src/streams/ownProperties.ts',
      ],
      repo,
    );
    await writeFile(join(build, 'package.json'), '{ "type": "module" }');
    await symlink(join(repo, 'node_modules'), join(build, 'node_modules'), 'dir');
    const worker = join(build, 'worker.js');
    await writeFile(
      worker,
      `import { createApprovalsStore } from './src/sinks/approvalsStore.js';
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
    const run = (prefix: string): Promise<void> => execNode([worker, file, P, prefix, '15', String(startAt)], build);
    await Promise.all([run('p'), run('q')]);
    const { decisions } = await createApprovalsStore(file).read(P);
    expect(Object.keys(decisions)).toHaveLength(30);
    expect(decisions['q-14']).toEqual(approved('q14'));
  });

  it('reads a corrupt file as no decisions with a warning, and backs it up before the first write', async () => {
    const corrupt = `{ "${P}": { "fs": { "hash": "h1", "status": "approved" } }`; // truncated
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, corrupt);
    const store = createApprovalsStore(file, { now: () => new Date('2026-01-02T03:04:05.678Z') });

    const read = await store.read(P);
    expect(read.decisions).toEqual({});
    expect(read.warning).toMatch(/mcpApprovals\.json: not valid JSON .*; every gated server counts as undecided$/);

    await store.decide(P, 'web', approved('h2'));
    const backup = `${file}.corrupt-2026-01-02T03-04-05-678Z.bak`;
    expect(await readFile(backup, 'utf8')).toBe(corrupt);
    expect((await stat(backup)).mode & 0o777).toBe(0o600);
    expect(await store.read(P)).toEqual({ decisions: { web: approved('h2') } });
  });

  it.each([
    ['a list', '[{ "fs": { "hash": "h", "status": "approved" } }]', /the top level is a list, not an object/],
    ['null', 'null', /the top level is null, not an object/],
    ['a string', '"approved"', /the top level is string, not an object/],
  ])('reads a top level that is %s as no decisions, and backs it up before writing', async (_name, content, warning) => {
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, content);
    const store = createApprovalsStore(file, { now: () => new Date(0) });
    const read = await store.read(P);
    expect(read.decisions).toEqual({});
    expect(read.warning).toMatch(warning);
    await store.decide(P, 'x', rejected('h'));
    expect(await readFile(`${file}.corrupt-1970-01-01T00-00-00-000Z.bak`, 'utf8')).toBe(content);
    expect(await stored()).toEqual({ [P]: { x: rejected('h') } });
  });

  it('reads a project entry that is not an object as no decisions, backs up before replacing it, keeps other projects', async () => {
    const content = JSON.stringify({ [P]: 'approved', '/other': { fs: approved('h') } });
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, content);
    const store = createApprovalsStore(file, { now: () => new Date(0) });
    expect(await store.read(P)).toEqual({ decisions: {}, warning: `${file}: the entry for ${P} is not an object; its servers count as undecided` });
    expect(await store.read('/other')).toEqual({ decisions: { fs: approved('h') } });
    await store.decide(P, 'web', approved('h2'));
    expect(await readFile(`${file}.corrupt-1970-01-01T00-00-00-000Z.bak`, 'utf8')).toBe(content);
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
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, JSON.stringify({ [P]: records }));
    const store = createApprovalsStore(file);
    const read = await store.read(P);
    expect(read.decisions).toEqual({ ok: approved('h') });
    expect(read.warning).toBe(
      `${file}: ignored malformed decisions for "numberHash", "shouting", "bare", "empty", "noHash" in ${P}; they count as undecided`,
    );
    await store.decide(P, 'new', rejected('n'));
    expect(await stored()).toEqual({ [P]: { ...records, new: rejected('n') } });
    expect((await readdir(dirname(file))).filter((name) => name.endsWith('.bak'))).toEqual([]);
  });

  it('stores a server named __proto__ (and does not invent "constructor")', async () => {
    const store = createApprovalsStore(file);
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
    const real = join(dir, 'real');
    await mkdir(real);
    await symlink(real, join(dir, 'link'), 'dir');
    expect(projectRoot(join(dir, 'link'))).toBe(projectRoot(real));
  });
});

describe('fromApprovals (real chokidar)', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await makeTempDir();
  });
  afterEach(async () => {
    await removeDir(dir);
  });

  it('sees a decision written by another store instance, and a corrupt file as no decisions', async () => {
    const file = join(dir, 'mcpApprovals.json');
    const decisions = record(fromApprovals(file, P));
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
