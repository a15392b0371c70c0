import { mkdir, mkdtemp, realpath, rm, symlink, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { NEVER } from 'rxjs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Location } from 'vscode-languageserver-protocol';
import type { LanguageServerConnection } from '../../../src/model/lsp/languageServer.js';
import { LspDocuments } from '../../../src/sinks/lsp/documents.js';
import { runLspTool, type LspToolDeps } from '../../../src/sinks/lsp/lspToolRunner.js';
import { MAX_DOCUMENT_BYTES } from '../../../src/files/readRegularFile.js';
import { posixOnly } from '../../platforms.js';
import { mkfifo, settlesWithin } from '../../streams/specialFileKit.js';

/**
 * The files a tool, a document or a server names are read bounded (decision 178): a FIFO, a
 * device, a socket or a file over the documents' cap is an answer naming what it is — never a
 * libuv thread blocked for good (which stopped exclusions applying and `quit` exiting) or a read
 * of `/dev/zero` that grew mcp-live to gigabytes.
 */

let workspace: string;
let references: Location[];
let documents: LspDocuments;
let deps: LspToolDeps;

const connection: LanguageServerConnection = {
  pid: undefined,
  lists: { tools: [], prompts: [], resources: [] },
  lists$: NEVER,
  callTool: () => Promise.reject(new Error('no MCP tools')),
  stderrTail: () => [],
  close: () => Promise.resolve(),
  lsp: {
    capabilities: { hoverProvider: true, referencesProvider: true },
    languageOf: () => 'typescript',
    request: <R,>(method: string): Promise<R> => Promise.resolve((method === 'textDocument/references' ? references : null) as R),
  },
};

beforeEach(async () => {
  workspace = await realpath(await mkdtemp(join(tmpdir(), 'mcp-live-lsp-reads-')));
  await writeFile(join(workspace, 'ok.ts'), 'export const ok = 1;\n');
  references = [];
  documents = new LspDocuments({ base: workspace });
  deps = {
    workspace,
    route: () => ({ server: 'lsp:typescript', connection }),
    server: () => connection,
    servers: () => ['typescript'],
    languages: () => ['typescript'],
    documents,
    diagnostics: () => [],
  };
});

afterEach(() => rm(workspace, { recursive: true, force: true }));

async function hoverError(file: string, fifo?: string): Promise<string> {
  const result = await settlesWithin(runLspTool('lsp__hover', { file, line: 1, column: 1 }, deps), 3_000, fifo);
  expect(result.isError).toBe(true);
  return result.content[0].text;
}

describe('lsp__* tools read the named file bounded', () => {
  posixOnly('mkfifo').it('a FIFO is refused at once, named as one (it used to hold a libuv thread until a writer came)', async () => {
    mkfifo(join(workspace, 'pipe.ts'));
    expect(await hoverError('pipe.ts', join(workspace, 'pipe.ts'))).toBe('cannot read pipe.ts: it is a FIFO (named pipe), not a regular file');
  });

  posixOnly('/dev/zero, symlinks').it('a link to /dev/zero is refused, naming where it leads (it used to be read until memory ran out)', async () => {
    await symlink('/dev/zero', join(workspace, 'zero.ts'));
    expect(await hoverError('zero.ts')).toBe('cannot read zero.ts: it links to /dev/zero, which is a character device, not a regular file');
  });

  it('a file over the documents` cap is refused with its size and the cap', async () => {
    await writeFile(join(workspace, 'big.ts'), '');
    await truncate(join(workspace, 'big.ts'), MAX_DOCUMENT_BYTES + 1);
    expect(await hoverError('big.ts')).toBe(`cannot read big.ts: file too large (${MAX_DOCUMENT_BYTES + 1} bytes; documents may be at most 16 MiB)`);
  });

  it('a directory and a missing file keep their words', async () => {
    await mkdir(join(workspace, 'src.ts'));
    expect(await hoverError('src.ts')).toBe('cannot read src.ts: it is a directory, expected a file');
    expect(await hoverError('missing.ts')).toBe('cannot read missing.ts: no such file');
  });

  posixOnly('mkfifo').it('a location a server names in a FIFO is answered without its line, not waited for', async () => {
    mkfifo(join(workspace, 'pipe.ts'));
    const at = (file: string): Location => ({ uri: pathToFileURL(join(workspace, file)).href, range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } } });
    references = [at('ok.ts'), at('pipe.ts')];
    const result = await settlesWithin(runLspTool('lsp__references', { file: 'ok.ts', line: 1, column: 1 }, deps), 3_000, join(workspace, 'pipe.ts'));
    expect(result.isError).toBeUndefined();
    expect(result.content[0].text).toMatch(/^2 references:\n/);
    expect(result.content[0].text).toContain('ok.ts:1:1');
    expect(result.content[0].text).toContain('pipe.ts:1:1');
  });
});

describe('LspDocuments.open reads the file bounded', () => {
  posixOnly('mkfifo, /dev/zero').it('refuses a FIFO, a device and a file over the cap, naming each; opens a regular file', async () => {
    mkfifo(join(workspace, 'pipe.ts'));
    await symlink('/dev/zero', join(workspace, 'zero.ts'));
    await writeFile(join(workspace, 'big.ts'), '');
    await truncate(join(workspace, 'big.ts'), MAX_DOCUMENT_BYTES + 1);
    const refusal = (path: string) => settlesWithin(documents.open(path).then(() => 'opened', (error: Error) => error.message), 3_000, join(workspace, path));
    expect(await refusal('pipe.ts')).toBe(`${join(workspace, 'pipe.ts')}: is a FIFO (named pipe), not a regular file`);
    expect(await refusal('zero.ts')).toBe(`${join(workspace, 'zero.ts')}: links to /dev/zero, which is a character device, not a regular file`);
    expect(await refusal('big.ts')).toBe(`${join(workspace, 'big.ts')}: file too large (${MAX_DOCUMENT_BYTES + 1} bytes; documents may be at most 16 MiB)`);
    expect((await documents.open('ok.ts')).text).toBe('export const ok = 1;\n');
    expect(documents.list().map((d) => d.path)).toEqual([join(workspace, 'ok.ts')]);
  });
});
