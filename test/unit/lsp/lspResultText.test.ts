import { describe, expect, it } from 'vitest';
import type { DocumentSymbol, Hover, Location, LocationLink, SymbolInformation, WorkspaceSymbol } from 'vscode-languageserver-protocol';
import { splitLines } from '../../../src/model/lsp/lspPositions.js';
import {
  displayPath,
  formatDiagnostics,
  formatDocumentSymbols,
  formatHover,
  formatLocations,
  formatWorkspaceSymbols,
  MAX_LISTED,
  type FileDiagnostics,
  type TextContext,
} from '../../../src/model/lsp/lspResultText.js';
import { GREET_REFERENCES, GREET_TS, MAIN_TS } from '../../fixtures/lspSampleProject.js';

// typescript-language-server 5.3's answers on the sample project, recorded (only the workspace path changed).
const GREET_URI = 'file:///ws/src/greet.ts';
const MAIN_URI = 'file:///ws/src/main.ts';
const TEXTS = new Map([
  [GREET_URI, splitLines(GREET_TS)],
  [MAIN_URI, splitLines(MAIN_TS)],
]);
const context: TextContext = { workspace: '/ws', encoding: 'utf-16', lines: (uri) => TEXTS.get(uri) };

const range = (line: number, character: number, endLine: number, endCharacter: number) => ({
  start: { line, character },
  end: { line: endLine, character: endCharacter },
});

describe('displayPath', () => {
  it('shows a file inside the workspace relative to it, one outside absolute, another scheme as is', () => {
    expect(displayPath(GREET_URI, '/ws')).toBe('src/greet.ts');
    expect(displayPath('file:///other/lib.d.ts', '/ws')).toBe('/other/lib.d.ts');
    expect(displayPath('file:///ws', '/ws')).toBe('/ws');
    expect(displayPath('file:///ws/a%20b/%C3%A9.ts', '/ws')).toBe('a b/é.ts');
    expect(displayPath('deno:/std/path.ts', '/ws')).toBe('deno:/std/path.ts');
    expect(displayPath('file:///ws/..hidden/x.ts', '/ws')).toBe('..hidden/x.ts');
  });
});

describe('formatLocations', () => {
  const references: Location[] = [
    { uri: GREET_URI, range: range(1, 16, 1, 21) },
    { uri: GREET_URI, range: range(10, 25, 10, 30) },
    { uri: MAIN_URI, range: range(0, 9, 0, 14) },
    { uri: MAIN_URI, range: range(2, 44, 2, 49) },
    { uri: MAIN_URI, range: range(3, 12, 3, 17) },
  ];

  it('gives path:LINE:COL and the source line, columns in characters after 日本 and 🚀', () => {
    expect(formatLocations(references, context, 'none')).toBe(GREET_REFERENCES.join('\n'));
  });

  it('points a LocationLink at its target name', () => {
    const links: LocationLink[] = [
      {
        originSelectionRange: range(2, 31, 2, 38),
        targetRange: range(5, 0, 12, 1),
        targetUri: GREET_URI,
        targetSelectionRange: range(5, 13, 5, 20),
      },
      {
        originSelectionRange: range(2, 31, 2, 38),
        targetRange: range(6, 2, 6, 49),
        targetUri: GREET_URI,
        targetSelectionRange: range(6, 2, 6, 49),
      },
    ];
    expect(formatLocations(links, context, 'none')).toBe(
      ['src/greet.ts:6:14: export class Greeter {', 'src/greet.ts:7:3: constructor(private readonly prefix: string) {}'].join('\n'),
    );
  });

  it('takes a single Location, and says `empty` for null or none', () => {
    expect(formatLocations({ uri: GREET_URI, range: range(1, 16, 1, 21) }, context, 'none')).toBe(
      'src/greet.ts:2:17: export function greet(name: string): string {',
    );
    expect(formatLocations(null, context, 'No definition found.')).toBe('No definition found.');
    expect(formatLocations([], context, 'No definition found.')).toBe('No definition found.');
  });

  it("keeps the server's column and shows no line for a document it cannot read", () => {
    expect(formatLocations([{ uri: 'file:///elsewhere/x.ts', range: range(4, 7, 4, 9) }], context, 'none')).toBe('/elsewhere/x.ts:5:8');
  });

  it('converts UTF-8 positions of a server that chose them', () => {
    expect(formatLocations([{ uri: MAIN_URI, range: range(2, 54, 2, 59) }], { ...context, encoding: 'utf-8' }, 'none')).toMatch(/^src\/main\.ts:3:44: /);
  });

  it('cuts a long source line after 200 characters, never inside one', () => {
    const long = `const s = '${'🚀'.repeat(300)}';`;
    const text = formatLocations([{ uri: 'file:///ws/long.ts', range: range(0, 6, 0, 7) }], { ...context, lines: () => [long] }, 'none');
    expect(text).toBe(`long.ts:1:7: ${[...long].slice(0, 200).join('')}…`);
  });

  it('cuts a long list and counts the rest', () => {
    const many = Array.from({ length: MAX_LISTED + 5 }, (_, i) => ({ uri: `file:///ws/f${i}.ts`, range: range(0, 0, 0, 1) }));
    const lines = formatLocations(many, context, 'none').split('\n');
    expect(lines).toHaveLength(MAX_LISTED + 1);
    expect(lines.at(-1)).toBe('… and 5 more');
  });
});

describe('formatHover', () => {
  it('gives MarkupContent as it is, trimmed', () => {
    const hover: Hover = {
      contents: { kind: 'markdown', value: '\n```typescript\n(alias) greet(name: string): string\nimport greet\n```\nGreets someone — „Grüße“ 🚀.' },
      range: range(3, 12, 3, 17),
    };
    expect(formatHover(hover, 'none')).toBe('```typescript\n(alias) greet(name: string): string\nimport greet\n```\nGreets someone — „Grüße“ 🚀.');
  });

  it('flattens MarkedString[]: a language string becomes a code block', () => {
    const hover: Hover = { contents: [{ language: 'python', value: 'def greet(name: str) -> str' }, 'Greets someone.', ''] };
    expect(formatHover(hover, 'none')).toBe('```python\ndef greet(name: str) -> str\n```\n\nGreets someone.');
    expect(formatHover({ contents: 'plain' }, 'none')).toBe('plain');
  });

  it('says `empty` for no hover or empty contents', () => {
    expect(formatHover(null, 'No hover information.')).toBe('No hover information.');
    expect(formatHover({ contents: { kind: 'plaintext', value: '  ' } }, 'No hover information.')).toBe('No hover information.');
    expect(formatHover({ contents: [] }, 'No hover information.')).toBe('No hover information.');
  });
});

describe('formatDocumentSymbols', () => {
  const expected = [
    'function greet 2:17 (lines 2-4)',
    'class Greeter 6:14 (lines 6-13)',
    '  constructor constructor 7:3',
    '  method hello 10:3 (lines 10-12)',
    '  property prefix 7:32',
  ].join('\n');

  it('indents a DocumentSymbol tree, each with kind, name position and lines', () => {
    const symbols: DocumentSymbol[] = [
      { name: 'greet', detail: '', kind: 12, range: range(1, 0, 3, 1), selectionRange: range(1, 16, 1, 21), children: [] },
      {
        name: 'Greeter',
        detail: '',
        kind: 5,
        range: range(5, 0, 12, 1),
        selectionRange: range(5, 13, 5, 20),
        children: [
          { name: 'constructor', detail: '', kind: 9, range: range(6, 2, 6, 49), selectionRange: range(6, 2, 6, 49), children: [] },
          { name: 'hello', detail: '', kind: 6, range: range(9, 2, 11, 3), selectionRange: range(9, 2, 9, 7), children: [] },
          { name: 'prefix', detail: '', kind: 7, range: range(6, 14, 6, 45), selectionRange: range(6, 31, 6, 37), children: [] },
        ],
      },
    ];
    expect(formatDocumentSymbols(symbols, GREET_URI, context, 'none')).toBe(expected);
  });

  it('nests flat SymbolInformation under its named container, not merely the innermost enclosing symbol', () => {
    // `prefix` lies inside the constructor's range; its container is Greeter.
    const symbols: SymbolInformation[] = [
      { name: 'greet', kind: 12, location: { uri: GREET_URI, range: range(1, 0, 3, 1) } },
      { name: 'Greeter', kind: 5, location: { uri: GREET_URI, range: range(5, 0, 12, 1) } },
      { name: 'constructor', kind: 9, location: { uri: GREET_URI, range: range(6, 2, 6, 49) }, containerName: 'Greeter' },
      { name: 'hello', kind: 6, location: { uri: GREET_URI, range: range(9, 2, 11, 3) }, containerName: 'Greeter' },
      { name: 'prefix', kind: 7, location: { uri: GREET_URI, range: range(6, 14, 6, 45) }, containerName: 'Greeter' },
    ];
    expect(formatDocumentSymbols(symbols, GREET_URI, context, 'none')).toBe(
      [
        'function greet 2:1 (lines 2-4)',
        'class Greeter 6:1 (lines 6-13)',
        '  constructor constructor 7:3',
        '  method hello 10:3 (lines 10-12)',
        '  property prefix 7:15',
      ].join('\n'),
    );
  });

  it('picks the enclosing one of two containers of one name, and keeps a symbol whose container is not found at the top', () => {
    const symbols: SymbolInformation[] = [
      { name: 'A', kind: 5, location: { uri: GREET_URI, range: range(0, 0, 2, 1) } },
      { name: 'A', kind: 5, location: { uri: GREET_URI, range: range(4, 0, 8, 1) } },
      { name: 'm', kind: 6, location: { uri: GREET_URI, range: range(5, 2, 5, 9) }, containerName: 'A' },
      { name: 'orphan', kind: 13, location: { uri: GREET_URI, range: range(10, 0, 10, 9) }, containerName: 'Missing' },
    ];
    expect(formatDocumentSymbols(symbols, GREET_URI, context, 'none')).toBe(
      ['class A 1:1 (lines 1-3)', 'class A 5:1 (lines 5-9)', '  method m 6:3', 'variable orphan 11:1'].join('\n'),
    );
  });

  it('shows detail, and says `empty` for no symbols', () => {
    const symbols: DocumentSymbol[] = [{ name: 'greet', detail: '(name: str) -> str', kind: 12, range: range(1, 0, 1, 5), selectionRange: range(1, 16, 1, 21) }];
    expect(formatDocumentSymbols(symbols, GREET_URI, context, 'none')).toBe('function greet (name: str) -> str 2:17');
    expect(formatDocumentSymbols([], GREET_URI, context, 'No symbols.')).toBe('No symbols.');
    expect(formatDocumentSymbols(null, GREET_URI, context, 'No symbols.')).toBe('No symbols.');
  });
});

describe('formatWorkspaceSymbols', () => {
  it('gives kind, name, container and path:LINE:COL', () => {
    const symbols: SymbolInformation[] = [
      { location: { uri: GREET_URI, range: range(1, 0, 3, 1) }, kind: 12, name: 'greet' },
      { location: { uri: GREET_URI, range: range(9, 2, 11, 3) }, kind: 6, name: 'hello', containerName: 'Greeter' },
    ];
    expect(formatWorkspaceSymbols(symbols, context, 'none')).toBe(['function greet src/greet.ts:2:1', 'method hello (in Greeter) src/greet.ts:10:3'].join('\n'));
  });

  it('shows only the path of a WorkspaceSymbol located by URI, and says `empty` for none', () => {
    const symbols: WorkspaceSymbol[] = [{ name: 'greet', kind: 12, location: { uri: GREET_URI } }];
    expect(formatWorkspaceSymbols(symbols, context, 'none')).toBe('function greet src/greet.ts');
    expect(formatWorkspaceSymbols([], context, 'No symbols.')).toBe('No symbols.');
  });
});

describe('formatDiagnostics', () => {
  const main: FileDiagnostics = {
    server: 'lsp:typescript',
    uri: MAIN_URI,
    path: '/ws/src/main.ts',
    diagnostics: [
      { range: range(4, 6, 4, 7), message: "'n' is declared but its value is never read.", severity: 4, code: 6133, source: 'typescript' },
      { range: range(4, 6, 4, 7), message: "Type 'string' is not assignable to type 'number'.", severity: 1, code: 2322, source: 'typescript' },
      { range: range(2, 44, 2, 49), message: 'first line\nsecond line', severity: 2 },
    ],
  };
  const greet: FileDiagnostics = { server: 'lsp:typescript', uri: GREET_URI, path: '/ws/src/greet.ts', diagnostics: [{ range: range(0, 0, 0, 1), message: 'no severity' }] };

  it('gives path:LINE:COL severity [source code] message, ordered by path and position', () => {
    expect(formatDiagnostics([main, greet], () => context, 'none')).toBe(
      [
        'src/greet.ts:1:1 error no severity',
        "src/main.ts:3:44 warning first line\n  second line",
        "src/main.ts:5:7 hint [typescript 6133] 'n' is declared but its value is never read.",
        "src/main.ts:5:7 error [typescript 2322] Type 'string' is not assignable to type 'number'.",
      ].join('\n'),
    );
  });

  it('converts each file with the context of the server that reported it', () => {
    const utf8: FileDiagnostics = { ...main, server: 'lsp:other', diagnostics: [{ range: range(2, 54, 2, 55), message: 'x', severity: 3, source: 'other' }] };
    const text = formatDiagnostics([utf8], (file) => ({ ...context, encoding: file.server === 'lsp:other' ? 'utf-8' : 'utf-16' }), 'none');
    expect(text).toBe('src/main.ts:3:44 info [other] x');
  });

  it('takes a MarkupContent message, and says `empty` for none', () => {
    const markup: FileDiagnostics = { ...greet, diagnostics: [{ range: range(0, 0, 0, 1), message: { kind: 'markdown', value: '**bad**' }, severity: 1 }] };
    expect(formatDiagnostics([markup], () => context, 'none')).toBe('src/greet.ts:1:1 error **bad**');
    expect(formatDiagnostics([{ ...greet, diagnostics: [] }], () => context, 'No diagnostics.')).toBe('No diagnostics.');
  });
});
