import { describe, expect, it } from 'vitest';
import type { ServerCapabilities } from 'vscode-languageserver-protocol';
import { checkLspToolArgs, LSP_TOOLS_SERVER, lspOperationOf, lspToolsFor, providerOf } from '../../../src/model/lsp/lspTools.js';

/** typescript-language-server 5.3's `initialize` answer, the providers of it that matter here. */
const TYPESCRIPT: ServerCapabilities = {
  textDocumentSync: 2,
  definitionProvider: true,
  referencesProvider: true,
  hoverProvider: true,
  documentSymbolProvider: true,
  workspaceSymbolProvider: true,
  renameProvider: true,
};
const ALL_NAMES = ['lsp__definition', 'lsp__references', 'lsp__hover', 'lsp__document_symbols', 'lsp__workspace_symbols', 'lsp__diagnostics'];

describe('lspToolsFor', () => {
  it('offers nothing while no language server is connected', () => {
    expect(lspToolsFor([])).toEqual([]);
  });

  it('offers every operation of a full server, in a fixed order', () => {
    expect(lspToolsFor([TYPESCRIPT]).map((t) => t.name)).toEqual(ALL_NAMES);
  });

  it('offers an operation while some server has its provider, diagnostics while any server is connected', () => {
    expect(lspToolsFor([{}]).map((t) => t.name)).toEqual(['lsp__diagnostics']);
    expect(lspToolsFor([{ hoverProvider: false, definitionProvider: { workDoneProgress: true } }]).map((t) => t.name)).toEqual([
      'lsp__definition',
      'lsp__diagnostics',
    ]);
    expect(lspToolsFor([{ hoverProvider: true }, { referencesProvider: true }]).map((t) => t.name)).toEqual([
      'lsp__references',
      'lsp__hover',
      'lsp__diagnostics',
    ]);
  });

  it('gives the same tool objects for the same capabilities, whatever their order', () => {
    const a = lspToolsFor([TYPESCRIPT, { hoverProvider: true }]);
    const b = lspToolsFor([{ hoverProvider: true }, { ...TYPESCRIPT }]);
    expect(b).toEqual(a);
    a.forEach((tool, i) => expect(b[i]).toBe(tool));
  });

  it('describes each tool as read-only, closed-world and trusted, under the server "lsp"', () => {
    for (const tool of lspToolsFor([TYPESCRIPT])) {
      expect(tool.server).toBe(LSP_TOOLS_SERVER);
      expect(tool.name).toBe(`lsp__${tool.tool}`);
      expect(tool.annotations).toMatchObject({ readOnlyHint: true, openWorldHint: false });
      expect(tool.trust).toBe(true);
      expect(tool.description).toBeTruthy();
      expect(tool.inputSchema).toMatchObject({ type: 'object', additionalProperties: false });
    }
  });

  it('has schemas with exactly the arguments validation accepts', () => {
    const schemas = Object.fromEntries(lspToolsFor([TYPESCRIPT]).map((t) => [t.tool, t.inputSchema]));
    const position = {
      file: { type: 'string', minLength: 1 },
      line: { type: 'integer', minimum: 1 },
      column: { type: 'integer', minimum: 1 },
    };
    expect(schemas.definition).toMatchObject({ properties: position, required: ['file', 'line', 'column'] });
    expect(schemas.hover).toMatchObject({ properties: position, required: ['file', 'line', 'column'] });
    expect(schemas.references).toMatchObject({ properties: { ...position, includeDeclaration: { type: 'boolean' } }, required: ['file', 'line', 'column'] });
    expect(schemas.document_symbols).toMatchObject({ properties: { file: position.file }, required: ['file'] });
    expect(schemas.workspace_symbols).toMatchObject({ properties: { query: { type: 'string' }, server: { type: 'string' } }, required: ['query'] });
    expect(schemas.diagnostics).toMatchObject({ properties: { file: position.file }, required: [] });
  });
});

describe('lspOperationOf / providerOf', () => {
  it('maps the qualified names and nothing else', () => {
    expect(lspOperationOf('lsp__hover')).toBe('hover');
    expect(lspOperationOf('lsp__workspace_symbols')).toBe('workspace_symbols');
    expect(lspOperationOf('lsp__rename')).toBeUndefined();
    expect(lspOperationOf('mcp__lsp__hover')).toBeUndefined();
    expect(lspOperationOf('hover')).toBeUndefined();
  });

  it('names the capability each operation needs', () => {
    expect(providerOf('definition')).toBe('definitionProvider');
    expect(providerOf('workspace_symbols')).toBe('workspaceSymbolProvider');
    expect(providerOf('diagnostics')).toBeUndefined();
  });
});

describe('checkLspToolArgs', () => {
  it('accepts a position and defaults includeDeclaration to true', () => {
    expect(checkLspToolArgs('hover', { file: 'src/a.ts', line: 3, column: 1 })).toEqual({
      ok: true,
      call: { operation: 'hover', file: 'src/a.ts', line: 3, column: 1 },
    });
    expect(checkLspToolArgs('references', { file: '/abs/a.ts', line: 1, column: 9 })).toEqual({
      ok: true,
      call: { operation: 'references', file: '/abs/a.ts', line: 1, column: 9, includeDeclaration: true },
    });
    expect(checkLspToolArgs('references', { file: 'a.ts', line: 1, column: 9, includeDeclaration: false })).toMatchObject({
      ok: true,
      call: { includeDeclaration: false },
    });
  });

  it('accepts the optional arguments absent', () => {
    expect(checkLspToolArgs('diagnostics', {})).toEqual({ ok: true, call: { operation: 'diagnostics' } });
    expect(checkLspToolArgs('workspace_symbols', { query: 'greet' })).toEqual({ ok: true, call: { operation: 'workspace_symbols', query: 'greet' } });
    expect(checkLspToolArgs('workspace_symbols', { query: 'greet', server: 'typescript' })).toEqual({
      ok: true,
      call: { operation: 'workspace_symbols', query: 'greet', server: 'typescript' },
    });
  });

  it('names every problem at once', () => {
    expect(checkLspToolArgs('definition', { file: '', line: 0, column: 2.5, col: 3 })).toEqual({
      ok: false,
      error:
        'lsp__definition: file must be a non-empty string; line must be a positive whole number (1-based); column must be a positive whole number (1-based); unknown argument "col" (expected file, line, column)',
    });
  });

  it('says which required arguments are missing', () => {
    expect(checkLspToolArgs('hover', { file: 'a.ts' })).toEqual({ ok: false, error: 'lsp__hover: line is required; column is required' });
    expect(checkLspToolArgs('workspace_symbols', {})).toEqual({ ok: false, error: 'lsp__workspace_symbols: query is required' });
  });

  it('refuses numbers given as strings and other wrong types', () => {
    expect(checkLspToolArgs('hover', { file: 'a.ts', line: '3', column: 1 })).toEqual({
      ok: false,
      error: 'lsp__hover: line must be a positive whole number (1-based)',
    });
    expect(checkLspToolArgs('references', { file: 'a.ts', line: 1, column: 1, includeDeclaration: 'yes' })).toEqual({
      ok: false,
      error: 'lsp__references: includeDeclaration must be true or false',
    });
    expect(checkLspToolArgs('diagnostics', { file: 7 })).toEqual({ ok: false, error: 'lsp__diagnostics: file must be a non-empty string' });
  });

  it('refuses arguments that are not an object', () => {
    expect(checkLspToolArgs('hover', null)).toEqual({ ok: false, error: 'lsp__hover: arguments must be an object' });
    expect(checkLspToolArgs('hover', ['a.ts', 1, 1])).toEqual({ ok: false, error: 'lsp__hover: arguments must be an object' });
  });
});
