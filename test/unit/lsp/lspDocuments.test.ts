import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Diagnostic } from 'vscode-languageserver-protocol';
import { LspDocuments, type DocumentChange, type FileDiagnostics } from '../../../src/sinks/lsp/documents.js';

let dir: string;
let documents: LspDocuments;
let changes: DocumentChange[];
let snapshots: (readonly FileDiagnostics[])[];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'mcp-live-docs-'));
  documents = new LspDocuments({ base: dir });
  changes = [];
  snapshots = [];
  documents.changes$.subscribe((change) => changes.push(change));
  documents.diagnostics$.subscribe((all) => snapshots.push(all));
});

afterEach(() => rmSync(dir, { recursive: true, force: true }));

function diagnostic(message: string): Diagnostic {
  return { range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } }, message };
}

describe('LspDocuments: documents', () => {
  it('opens a file from disk (path made absolute, a file URI), changes it (version + 1), closes it', async () => {
    writeFileSync(join(dir, 'a b.ts'), 'const ü = 1;\n');
    const opened = await documents.open('a b.ts');
    expect(opened).toEqual({ path: join(dir, 'a b.ts'), uri: pathToFileURL(join(dir, 'a b.ts')).href, text: 'const ü = 1;\n', version: 1 });
    expect(documents.change(join(dir, 'a b.ts'), 'x')).toMatchObject({ text: 'x', version: 2 });
    expect(documents.get('a b.ts')).toMatchObject({ text: 'x', version: 2 });
    expect(documents.close('a b.ts')).toBe(true);
    expect(documents.close('a b.ts')).toBe(false);
    expect(documents.get('a b.ts')).toBeUndefined();
    expect(changes.map((c) => [c.type, c.document.version])).toEqual([
      ['open', 1],
      ['change', 2],
      ['close', 2],
    ]);
  });

  it('opens with the given text without reading; opening again is a change only when the text differs', async () => {
    await documents.open('missing.ts', 'given');
    await documents.open('missing.ts', 'given');
    await documents.open('missing.ts', 'other');
    expect(changes.map((c) => [c.type, c.document.text, c.document.version])).toEqual([
      ['open', 'given', 1],
      ['change', 'other', 2],
    ]);
    expect(documents.list().map((d) => d.path)).toEqual([join(dir, 'missing.ts')]);
  });

  it('refuses to change a document that is not open, and to open a file that does not exist', async () => {
    expect(() => documents.change('nope.ts', 'x')).toThrow(`document "${join(dir, 'nope.ts')}" is not open`);
    await expect(documents.open('nope.ts')).rejects.toThrow('ENOENT');
    expect(changes).toEqual([]);
  });
});

describe('LspDocuments: diagnostics', () => {
  const uri = (name: string) => pathToFileURL(join(dir, name)).href;

  it('caches what servers publish per document and server, sorted; an empty list clears; emits only on change', () => {
    const ts = {};
    const eslint = {};
    documents.setDiagnostics(ts, 'lsp:ts', uri('b.ts'), [diagnostic('b')]);
    documents.setDiagnostics(eslint, 'lsp:eslint', uri('b.ts'), [diagnostic('lint')]);
    documents.setDiagnostics(ts, 'lsp:ts', uri('a.ts'), [diagnostic('a')]);
    documents.setDiagnostics(ts, 'lsp:ts', uri('a.ts'), [diagnostic('a')]);
    expect(documents.diagnostics().map((d) => [d.server, d.path, d.diagnostics[0]!.message])).toEqual([
      ['lsp:ts', join(dir, 'a.ts'), 'a'],
      ['lsp:eslint', join(dir, 'b.ts'), 'lint'],
      ['lsp:ts', join(dir, 'b.ts'), 'b'],
    ]);
    expect(documents.diagnostics(join(dir, 'b.ts')).map((d) => d.server)).toEqual(['lsp:eslint', 'lsp:ts']);
    documents.setDiagnostics(ts, 'lsp:ts', uri('b.ts'), []);
    expect(documents.diagnostics('b.ts').map((d) => d.server)).toEqual(['lsp:eslint']);
    // The first snapshot is the empty cache at subscription; the repeated publish emitted nothing.
    expect(snapshots.map((s) => s.length)).toEqual([0, 1, 2, 3, 2]);
  });

  it('during a swap shows the latest connection, and dropping either keeps the other one`s', () => {
    const old = {};
    const replacement = {};
    documents.setDiagnostics(old, 'lsp:ts', uri('a.ts'), [diagnostic('old')]);
    documents.setDiagnostics(replacement, 'lsp:ts', uri('a.ts'), [diagnostic('new')]);
    expect(documents.diagnostics().map((d) => d.diagnostics[0]!.message)).toEqual(['new']);
    documents.dropDiagnostics(old);
    expect(documents.diagnostics().map((d) => d.diagnostics[0]!.message)).toEqual(['new']);

    documents.setDiagnostics(old, 'lsp:ts', uri('a.ts'), [diagnostic('old again')]);
    documents.dropDiagnostics(old);
    expect(documents.diagnostics().map((d) => d.diagnostics[0]!.message)).toEqual(['new']);
    documents.dropDiagnostics(replacement);
    expect(documents.diagnostics()).toEqual([]);
  });

  it('a newer connection that clears is the latest word, even beside an older one`s list', () => {
    const old = {};
    const replacement = {};
    documents.setDiagnostics(old, 'lsp:ts', uri('a.ts'), [diagnostic('stale')]);
    documents.setDiagnostics(replacement, 'lsp:ts', uri('a.ts'), []);
    expect(documents.diagnostics()).toEqual([]);
  });

  it('keeps a non-file URI as the path', () => {
    documents.setDiagnostics({}, 'lsp:x', 'untitled:1', [diagnostic('u')]);
    expect(documents.diagnostics()[0]).toMatchObject({ uri: 'untitled:1', path: 'untitled:1' });
  });
});
