import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LSP_CLIENT_CAPABILITIES, initializeParams } from '../../../src/model/lsp/lspInitialize.js';
import { capabilitySummary, settingsSection } from '../../../src/model/lsp/lspServerFacts.js';

describe('capabilitySummary', () => {
  it('names every provider a server announced, one word each, sorted; pull diagnostics as "diagnostics"', () => {
    expect(
      capabilitySummary({
        textDocumentSync: 2,
        workspaceSymbolProvider: true,
        hoverProvider: { workDoneProgress: false },
        completionProvider: { triggerCharacters: ['.'] },
        definitionProvider: true,
        diagnosticProvider: { interFileDependencies: true, workspaceDiagnostics: false },
        referencesProvider: true,
        documentSymbolProvider: true,
      }),
    ).toEqual(['completion', 'definition', 'diagnostics', 'documentSymbol', 'hover', 'references', 'workspaceSymbol']);
  });

  it('leaves out providers set to false or null, and what is not a provider', () => {
    expect(capabilitySummary({ hoverProvider: false, renameProvider: null as never, textDocumentSync: 1, workspace: {} })).toEqual([]);
    expect(capabilitySummary({})).toEqual([]);
  });
});

describe('settingsSection', () => {
  const settings = { python: { analysis: { typeCheckingMode: 'strict' } }, 'typescript.format': { semicolons: 'insert' }, zero: 0, off: false };

  it('is the whole settings without a section, null when there are none', () => {
    expect(settingsSection(settings, undefined)).toBe(settings);
    expect(settingsSection(settings, '')).toBe(settings);
    expect(settingsSection(undefined, undefined)).toBeNull();
  });

  it('follows a dotted section through nested objects and dotted keys alike', () => {
    expect(settingsSection(settings, 'python')).toEqual({ analysis: { typeCheckingMode: 'strict' } });
    expect(settingsSection(settings, 'python.analysis.typeCheckingMode')).toBe('strict');
    expect(settingsSection(settings, 'typescript.format')).toEqual({ semicolons: 'insert' });
    expect(settingsSection(settings, 'typescript.format.semicolons')).toBe('insert');
  });

  it('keeps falsy values and answers null for what is missing', () => {
    expect(settingsSection(settings, 'zero')).toBe(0);
    expect(settingsSection(settings, 'off')).toBe(false);
    expect(settingsSection(settings, 'python.missing')).toBeNull();
    expect(settingsSection(settings, 'zero.below')).toBeNull();
    expect(settingsSection({ list: [1, 2] }, 'list.0')).toBeNull();
    expect(settingsSection(undefined, 'python')).toBeNull();
  });

  it('finds any value written nested also when the same path is written with dotted keys', () => {
    const segment = fc.stringMatching(/^[a-z]{1,4}$/);
    fc.assert(
      fc.property(fc.array(segment, { minLength: 1, maxLength: 4 }), fc.integer({ min: 1, max: 3 }), fc.jsonValue(), (path, cut, value) => {
        const nested = path.reduceRight<unknown>((inner, key) => ({ [key]: inner }), value);
        const split = Math.min(cut, path.length);
        const dotted = { [path.slice(0, split).join('.')]: path.slice(split).reduceRight<unknown>((inner, key) => ({ [key]: inner }), value) };
        const expected = value ?? null;
        expect(settingsSection(nested, path.join('.'))).toEqual(expected);
        expect(settingsSection(dotted, path.join('.'))).toEqual(expected);
      }),
    );
  });
});

describe('initializeParams', () => {
  it('names the client and the one workspace folder, passes the options, and offers what the client honours', () => {
    const params = initializeParams({ workspaceFolder: '/work/my project', initializationOptions: { a: 1 }, clientName: 'mcp-live', processId: 42 });
    expect(params).toEqual({
      processId: 42,
      clientInfo: { name: 'mcp-live' },
      rootPath: '/work/my project',
      rootUri: 'file:///work/my%20project',
      workspaceFolders: [{ uri: 'file:///work/my%20project', name: 'my project' }],
      initializationOptions: { a: 1 },
      capabilities: LSP_CLIENT_CAPABILITIES,
    });
    expect(LSP_CLIENT_CAPABILITIES.textDocument?.synchronization?.didSave).toBe(false);
    expect(LSP_CLIENT_CAPABILITIES.workspace?.configuration).toBe(true);
    expect(LSP_CLIENT_CAPABILITIES.window).toBeUndefined();
  });

  it('leaves initializationOptions out when the entry has none', () => {
    expect(initializeParams({ workspaceFolder: '/w', clientName: 'x', processId: 1 })).not.toHaveProperty('initializationOptions');
  });
});
