import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NEVER } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import type { LanguageServerConnection } from '../../src/model/lsp/languageServer.js';
import { isFolderTrusted } from '../../src/model/launch/folderTrust.js';
import { foldCase, sameButCase, upperDriveLetter, type PathKeys } from '../../src/model/pathKeys.js';
import { createApprovalsStore, projectRoot } from '../../src/sinks/stores/approvalsStore.js';
import { LspDocuments } from '../../src/sinks/lsp/documents.js';
import { runLspTool } from '../../src/sinks/lsp/lspToolRunner.js';
import { pathKeys } from '../../src/platform/systemPathKeys.js';

/**
 * Decision 283: trust rules, the approvals' project root and language servers' `file:` URIs on
 * file systems that ignore case (macOS, Windows), with the platform given and a simulated disk:
 * keys are made once, in the real case; on Linux they are what they always were.
 */

const ENOENT = (path: string) => Object.assign(new Error(`ENOENT: no such file or directory, realpath '${path}'`), { code: 'ENOENT' });

/**
 * A case-blind disk holding `real` (each path in its real case) and symbolic `links`:
 * realpathNative gives the real case and resolves links; realpath (Node's JavaScript one)
 * resolves links but keeps the case as given. Counts the native calls.
 */
function caseBlindDisk(real: readonly string[], links: Readonly<Record<string, string>> = {}, sep = '/') {
  const byFold = new Map(real.map((p) => [foldCase(p), p]));
  const unlink = (path: string): string => {
    for (const [link, target] of Object.entries(links)) {
      if (foldCase(path) === foldCase(link) || foldCase(path).startsWith(foldCase(link) + sep)) return target + path.slice(link.length);
    }
    return path;
  };
  const calls: string[] = [];
  const realpathNative = (path: string): string => {
    calls.push(path);
    const hit = byFold.get(foldCase(unlink(path)));
    if (hit === undefined) throw ENOENT(path);
    return hit;
  };
  const realpath = (path: string): string => {
    if (!byFold.has(foldCase(unlink(path)))) throw ENOENT(path);
    return unlink(path);
  };
  return { calls, realpath, realpathNative };
}

const MAC_DISK = ['/', '/Users', '/Users/x', '/Users/x/Proj', '/Users/x/Proj/src', '/Users/x/Proj/src/a.ts', '/Users/x/Other', '/private', '/private/tmp', '/private/tmp/Work'];
const macDisk = () => caseBlindDisk(MAC_DISK, { '/tmp': '/private/tmp' });
const mac = (disk = macDisk()): PathKeys => pathKeys({ platform: 'darwin', ...disk });

const WINDOWS_DISK = ['C:\\', 'C:\\Work', 'C:\\Work\\App', 'C:\\Work\\App\\src', 'C:\\Work\\App\\src\\main.ts', 'D:\\'];
const windowsDisk = () => caseBlindDisk(WINDOWS_DISK, {}, '\\');
const windows = (disk = windowsDisk()): PathKeys => pathKeys({ platform: 'win32', ...disk });

/** Linux with the same (simulated) disk: nothing of it is asked for a key. */
const linux = (disk = macDisk()): PathKeys => pathKeys({ platform: 'linux', ...disk });

describe('the pure part', () => {
  it('capitalises a drive letter only, and compares paths case-blind and composition-blind', () => {
    expect(upperDriveLetter('c:\\x')).toBe('C:\\x');
    expect(upperDriveLetter('C:\\x')).toBe('C:\\x');
    expect(upperDriveLetter('\\\\server\\share')).toBe('\\\\server\\share');
    expect(upperDriveLetter('/c:/x')).toBe('/c:/x');
    expect(sameButCase('/Users/x/Proj', '/users/X/proj')).toBe(true);
    expect(sameButCase('/Users/x/Caf\u00e9', '/users/x/cafe\u0301')).toBe(true);
    expect(sameButCase('/private/tmp/Work', '/tmp/Work')).toBe(false);
  });
});

describe('pathKeys', () => {
  it('linux: a path is its own key, and nothing is asked of the disk', () => {
    const disk = macDisk();
    const keys = linux(disk);
    expect(keys.key('/users/x/proj')).toBe('/users/x/proj');
    expect(keys.key('/Users/x/Proj/')).toBe('/Users/x/Proj/');
    expect(keys.pathOfFileUri('file:///users/x/proj/a%20b.ts')).toBe('/users/x/proj/a b.ts');
    expect(disk.calls).toEqual([]);
  });

  it('darwin: the real case from realpathSync.native, a path through a link or a missing one as spelled', () => {
    const keys = mac();
    expect(keys.key('/users/x/proj')).toBe('/Users/x/Proj');
    expect(keys.key('/USERS/X/PROJ/SRC/A.TS')).toBe('/Users/x/Proj/src/a.ts');
    expect(keys.key('/users/x/proj/src/../')).toBe('/Users/x/Proj');
    // realpath would give /private/tmp/Work: a link is not followed into a key.
    expect(keys.key('/tmp/work')).toBe('/tmp/work');
    expect(keys.key('/users/x/gone')).toBe('/users/x/gone');
  });

  it('win32: the real case and a capital drive letter, also where the path does not exist', () => {
    const keys = windows();
    expect(keys.key('c:\\work\\app')).toBe('C:\\Work\\App');
    expect(keys.key('c:/WORK/app/SRC/')).toBe('C:\\Work\\App\\src');
    expect(keys.key('d:\\new folder')).toBe('D:\\new folder');
  });

  it('the project root: the realpath (links followed: docs/contract.md, "Approvals") in its real case', () => {
    expect(mac().projectRoot('/users/x/proj')).toBe('/Users/x/Proj');
    expect(mac().projectRoot('/tmp/work')).toBe('/private/tmp/Work');
    expect(windows().projectRoot('c:\\work\\app')).toBe('C:\\Work\\App');
    // Linux: realpathSync as ever (the simulated one resolves the link and keeps the case).
    expect(linux().projectRoot('/tmp/work')).toBe('/private/tmp/work');
    expect(() => mac().projectRoot('/users/nobody')).toThrow('ENOENT');
  });

  it("file: URIs: a server's spelling (c%3A, lower case) is the document's key; the URI of a path in the platform's form", () => {
    expect(windows().pathOfFileUri('file:///c%3A/work/APP/src/main.ts')).toBe('C:\\Work\\App\\src\\main.ts');
    expect(windows().pathOfFileUri('file:///C:/Work/App/src/main.ts')).toBe('C:\\Work\\App\\src\\main.ts');
    expect(mac().pathOfFileUri('file:///users/x/proj/src/a.ts')).toBe('/Users/x/Proj/src/a.ts');
    expect(windows().fileUri('C:\\Work\\App\\a b.ts')).toBe('file:///C:/Work/App/a%20b.ts');
    expect(mac().fileUri('/Users/x/Proj/a b.ts')).toBe('file:///Users/x/Proj/a%20b.ts');
    for (const keys of [mac(), windows(), linux()]) {
      expect(keys.pathOfFileUri('untitled:Untitled-1')).toBeUndefined();
      expect(keys.pathOfFileUri('file://host%/x')).toBeUndefined();
    }
  });
});

describe('trust rules (isFolderTrusted)', () => {
  it('darwin: a rule in another case covers the folder, TRUST_PARENT and DO_NOT_TRUST alike', () => {
    expect(isFolderTrusted('/users/x/proj/src', { '/Users/x/Proj': 'TRUST_FOLDER' }, mac())).toBe(true);
    expect(isFolderTrusted('/Users/x/Proj', { '/users/x/proj/': 'TRUST_FOLDER' }, mac())).toBe(true);
    expect(isFolderTrusted('/Users/x/Proj', { '/users/x/other': 'TRUST_PARENT' }, mac())).toBe(true);
    expect(isFolderTrusted('/Users/x/Proj/src', { '/users/x': 'TRUST_FOLDER', '/USERS/X/PROJ': 'DO_NOT_TRUST' }, mac())).toBe(false);
    // Another folder that only looks alike is not covered.
    expect(isFolderTrusted('/Users/x/Proj', { '/users/x/pro': 'TRUST_FOLDER' }, mac())).toBe(false);
  });

  it('darwin: a rule the disk does not know in that case (a case-sensitive volume) covers nothing', () => {
    const sensitive = pathKeys({ platform: 'darwin', realpath: (p) => p, realpathNative: (p) => (p === '/Volumes/cs/Proj' ? p : (() => { throw ENOENT(p); })()) });
    expect(isFolderTrusted('/Volumes/cs/Proj', { '/Volumes/cs/proj': 'TRUST_FOLDER' }, sensitive)).toBe(false);
  });

  it('win32: c:\\ and C:\\, forward slashes, and any case of the folders', () => {
    expect(isFolderTrusted('C:\\Work\\App\\src', { 'c:\\work': 'TRUST_FOLDER' }, windows())).toBe(true);
    expect(isFolderTrusted('c:\\work\\app', { 'C:/Work/App': 'TRUST_FOLDER' }, windows())).toBe(true);
    expect(isFolderTrusted('c:\\work\\app', { 'C:\\WORK\\APP\\SRC': 'TRUST_PARENT' }, windows())).toBe(true);
    expect(isFolderTrusted('C:\\Work\\App', { 'c:\\work\\app': 'DO_NOT_TRUST', 'C:\\': 'TRUST_FOLDER' }, windows())).toBe(false);
  });

  it('asks the disk only about rules that could cover the folder', () => {
    const disk = macDisk();
    const rules = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`/Users/x/p${i}`, 'TRUST_FOLDER']));
    expect(isFolderTrusted('/users/x/proj', { ...rules, '/USERS/X': 'TRUST_FOLDER' }, mac(disk))).toBe(true);
    expect(disk.calls.sort()).toEqual(['/USERS/X', '/users/x/proj']);
  });

  it('linux: compared as written, as before (a rule in another case does not cover the folder)', () => {
    expect(isFolderTrusted('/users/x/proj', { '/Users/x/Proj': 'TRUST_FOLDER' }, linux())).toBe(false);
  });
});

describe('approvals: the project root key', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('darwin: decisions made in /Users/x/Proj are found from /users/x/proj (a real approvals file)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-live-keys-'));
    dirs.push(dir);
    const store = createApprovalsStore(join(dir, 'mcpApprovals.json'));
    await store.decide(projectRoot('/Users/x/Proj', mac()), 'db', { hash: 'a'.repeat(64), status: 'approved' });
    expect((await store.read(projectRoot('/users/x/proj', mac()))).decisions).toEqual({ db: { hash: 'a'.repeat(64), status: 'approved' } });
    expect((await store.read(projectRoot('c:\\work\\app', windows()))).decisions).toEqual({});
  });

  it('linux: the key is realpathSync(cwd), unchanged, so a key written before still matches', () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'mcp-live-keys-')));
    dirs.push(dir);
    mkdirSync(join(dir, 'Proj'));
    expect(projectRoot(join(dir, 'Proj', '.'), pathKeys({ platform: 'linux' }))).toBe(realpathSync(join(dir, 'Proj')));
    if (process.platform === 'linux') expect(projectRoot(join(dir, 'Proj'))).toBe(realpathSync(join(dir, 'Proj')));
  });
});

describe('language servers: file: URIs', () => {
  const diagnostic = { range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } }, message: 'boom' };

  it("win32: diagnostics a server publishes for file:///c%3A/work/... are the document opened as C:\\Work\\...", async () => {
    const documents = new LspDocuments({ base: 'C:\\Work\\App', pathKeys: windows() });
    const opened = await documents.open('src\\MAIN.ts', 'x');
    expect(opened).toMatchObject({ path: 'C:\\Work\\App\\src\\main.ts', uri: 'file:///C:/Work/App/src/main.ts' });
    const reported: string[] = [];
    documents.reported$.subscribe((path) => reported.push(path));
    documents.setDiagnostics({}, 'lsp:ts', 'file:///c%3A/work/app/src/main.ts', [diagnostic]);
    expect(documents.diagnostics('c:\\work\\app\\src\\main.ts')).toMatchObject([{ path: 'C:\\Work\\App\\src\\main.ts', diagnostics: [diagnostic] }]);
    expect(documents.diagnostics('src/main.ts')).toHaveLength(1);
    expect(reported).toEqual(['C:\\Work\\App\\src\\main.ts']);
    expect(documents.get('C:\\WORK\\App\\src\\main.ts')).toBe(opened);
  });

  it('linux: the same URIs in another case stay apart, as before', async () => {
    const documents = new LspDocuments({ base: '/Users/x/Proj', pathKeys: linux() });
    await documents.open('src/a.ts', 'x');
    documents.setDiagnostics({}, 'lsp:ts', 'file:///users/x/proj/src/a.ts', [diagnostic]);
    expect(documents.diagnostics('src/a.ts')).toEqual([]);
    expect(documents.diagnostics('/users/x/proj/src/a.ts')).toHaveLength(1);
  });

  it('darwin: lsp__diagnostics of a file named in another case waits for the report on its key, not the longest wait', async () => {
    // A real directory stands for the Mac's: the agent names it in lower case (the file exists so
    // spelled here), the disk's real case is Proj.
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'mcp-live-keys-')));
    try {
      mkdirSync(join(dir, 'proj'));
      writeFileSync(join(dir, 'proj', 'a.ts'), 'const n: number = "x";\n');
      const keys = pathKeys({ platform: 'darwin', ...caseBlindDisk([dir, join(dir, 'Proj'), join(dir, 'Proj', 'a.ts')]) });
      const documents = new LspDocuments({ base: dir, pathKeys: keys });
      // The server answers each didOpen with a report on the URI it was sent (the real case).
      const owner = {};
      const server = documents.changes$.subscribe((change) => {
        if (change.type === 'open') setTimeout(() => documents.setDiagnostics(owner, 'lsp:ts', change.document.uri, [diagnostic]), 20);
      });
      const connection: LanguageServerConnection = {
        pid: 1,
        lists: { tools: [], prompts: [], resources: [] },
        lists$: NEVER,
        callTool: () => Promise.reject(new Error('no tools')),
        stderrTail: () => [],
        close: () => Promise.resolve(),
        lsp: { capabilities: {}, languageOf: () => 'typescript', request: () => Promise.reject(new Error('not asked')) },
      };
      const started = Date.now();
      const result = await runLspTool('lsp__diagnostics', { file: 'proj/a.ts' }, {
        workspace: dir,
        route: () => ({ server: 'lsp:ts', connection }),
        server: () => connection,
        servers: () => ['ts'],
        languages: () => ['typescript'],
        documents,
        diagnostics: (path) => documents.diagnostics(path),
        diagnosticsReported$: documents.reported$,
      });
      server.unsubscribe();
      expect(result.isError).toBeUndefined();
      expect(JSON.stringify(result.content)).toContain('boom');
      expect(documents.list().map((d) => d.uri)).toEqual([`file://${dir}/Proj/a.ts`]);
      // The longest wait for a first report is 10 s; the report on the key ends it at once.
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
