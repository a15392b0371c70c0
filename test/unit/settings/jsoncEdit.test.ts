import { describe, expect, it } from 'vitest';
import { detectStyle, JsoncEditError, removeJsoncProperty, setJsoncProperty } from '../../../src/model/settings/jsoncEdit.js';
import { addServerEntry, removeServerEntry, setServerDisabled, setTrustRule } from '../../../src/model/settings/serverEntryEdits.js';
import { parseJsoncObject } from '../../../src/model/settings/parseJsonc.js';

const SETTINGS = [
  '// My settings — keep this header',
  '{',
  '  "theme": "dark", /* inline */',
  '  "mcpServers": {',
  '    // github, from the team wiki',
  '    "github": { "command": "gh-mcp" }, // compact on purpose',
  '    "memory": {',
  '      "command": "npx",',
  '      "args": ["-y", "@modelcontextprotocol/server-memory"] // pinned later',
  '    } // the last one',
  '  }',
  '  // trailing comment of the file',
  '}',
  '',
].join('\n');

const value = (text: string): Record<string, unknown> => {
  const parsed = parseJsoncObject(text, 'test');
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.value!;
};

/** `after` is `before` with exactly `inserted` put in at some places: nothing else moved or changed. */
function onlyInserted(before: string, after: string, inserted: string[]): void {
  let rest = after;
  for (const piece of inserted) {
    const at = rest.indexOf(piece);
    expect(at, `inserted ${JSON.stringify(piece)}`).toBeGreaterThanOrEqual(0);
    rest = rest.slice(0, at) + rest.slice(at + piece.length);
  }
  expect(rest).toBe(before);
}

describe('setJsoncProperty', () => {
  it('appends a server after the last one, keeping every other byte (comments, compact entries, layout)', () => {
    const next = setJsoncProperty(SETTINGS, ['mcpServers', 'fs'], { command: 'node', args: ['fs.js'], env: { ROOT: '/tmp' } }, 'settings.json');
    // The comma goes before the comment that belongs to the entry above; nothing else changes.
    const block = '\n    "fs": {\n      "command": "node",\n      "args": [\n        "fs.js"\n      ],\n      "env": {\n        "ROOT": "/tmp"\n      }\n    }';
    expect(next).toBe(SETTINGS.replace('    } // the last one', `    }, // the last one${block}`));
    expect(value(next).mcpServers).toMatchObject({ fs: { command: 'node' }, github: { command: 'gh-mcp' } });
  });

  it('creates a missing mcpServers object, and the file from nothing', () => {
    const withTheme = '{\n\t"theme": "dark" // tabs here\n}\n';
    const next = setJsoncProperty(withTheme, ['mcpServers', 'a'], { command: 'x' }, 'f');
    expect(next).toBe('{\n\t"theme": "dark", // tabs here\n\t"mcpServers": {\n\t\t"a": {\n\t\t\t"command": "x"\n\t\t}\n\t}\n}\n');
    expect(setJsoncProperty('', ['mcpServers', 'a'], { command: 'x' }, 'f')).toBe(
      '{\n  "mcpServers": {\n    "a": {\n      "command": "x"\n    }\n  }\n}\n',
    );
    expect(setJsoncProperty('{\n  "mcpServers": {}\n}', ['mcpServers', 'a'], 1, 'f')).toBe('{\n  "mcpServers": {\n    "a": 1\n  }\n}');
  });

  it('replaces a value in place, laid out at its key’s indentation', () => {
    const next = setJsoncProperty(SETTINGS, ['mcpServers', 'github'], { command: 'gh-mcp', disabled: true }, 'f');
    onlyInserted(SETTINGS.replace('{ "command": "gh-mcp" }', ''), next, ['{\n      "command": "gh-mcp",\n      "disabled": true\n    }']);
  });

  it('keeps CRLF line endings and a trailing comma', () => {
    const crlf = '{\r\n  "mcpServers": {\r\n    "a": 1,\r\n  }\r\n}\r\n';
    const next = setJsoncProperty(crlf, ['mcpServers', 'b'], { x: [1] }, 'f');
    expect(next).toBe('{\r\n  "mcpServers": {\r\n    "a": 1,\r\n    "b": {\r\n      "x": [\r\n        1\r\n      ]\r\n    }\r\n  }\r\n}\r\n');
  });

  it('edits a compact one-line file compactly', () => {
    const next = setJsoncProperty('{"mcpServers": {"a": {"command": "x"}}}', ['mcpServers', 'b'], { command: 'y' }, 'f');
    expect(value(next)).toEqual({ mcpServers: { a: { command: 'x' }, b: { command: 'y' } } });
    expect(next.split('\n')).toHaveLength(1);
  });

  it('treats __proto__ as an ordinary key', () => {
    const next = setJsoncProperty('{}', ['mcpServers', '__proto__'], { command: 'p' }, 'f');
    expect(Object.hasOwn(value(next).mcpServers as object, '__proto__')).toBe(true);
  });

  it.each([
    ['{"mcpServers": [] }', /"mcpServers" must be an object, found a list/],
    ['{"mcpServers": {"a": 1', /f:1:\d+: expected "}"/],
    ['[1]', /top level must be a JSON object/],
    ['// only a comment\n', /empty/],
  ])('refuses %j', (text, message) => {
    expect(() => setJsoncProperty(text, ['mcpServers', 'a'], {}, 'f')).toThrow(JsoncEditError);
    expect(() => setJsoncProperty(text, ['mcpServers', 'a'], {}, 'f')).toThrow(message);
  });
});

describe('removeJsoncProperty', () => {
  it('removes the last server with its lines and its comment, and the comma before it', () => {
    const next = removeJsoncProperty(SETTINGS, ['mcpServers', 'memory'], 'f');
    expect(next).toBe(SETTINGS.replace('"gh-mcp" }, // compact', '"gh-mcp" } // compact').replace(/ {4}"memory": \{[\s\S]*?\/\/ the last one\n/, ''));
    expect(value(next).mcpServers).toEqual({ github: { command: 'gh-mcp' } });
  });

  it('removes a middle entry on its own line; the comment above it stays', () => {
    const next = removeJsoncProperty(SETTINGS, ['mcpServers', 'github'], 'f');
    expect(next).toBe(SETTINGS.replace('    "github": { "command": "gh-mcp" }, // compact on purpose\n', ''));
  });

  it('leaves text without the property unchanged, compact files compact', () => {
    expect(removeJsoncProperty(SETTINGS, ['mcpServers', 'nope'], 'f')).toBe(SETTINGS);
    expect(removeJsoncProperty(SETTINGS, ['nothing', 'here'], 'f')).toBe(SETTINGS);
    expect(removeJsoncProperty('{"a": 1, "b": 2}', ['a'], 'f')).toBe('{"b": 2}');
  });
});

describe('detectStyle', () => {
  it.each([
    ['{\n    "a": 1\n}', '    ', '\n'],
    ['{\r\n\t"a": 1\r\n}', '\t', '\r\n'],
    ['{"a": 1}', '  ', '\n'],
    ['{\n  // a comment\n  "a": 1\n}', '  ', '\n'],
  ])('%j', (text, indent, eol) => {
    expect(detectStyle(text)).toEqual({ indent, eol });
  });
});

describe('server entry edits', () => {
  it('add refuses an existing name unless replacing', () => {
    expect(() => addServerEntry(SETTINGS, 'github', { command: 'y' }, { label: 'f' })).toThrow('"github" is already defined in f; add --force');
    const { text, replaced } = addServerEntry(SETTINGS, 'github', { command: 'y' }, { label: 'f', replace: true });
    expect(replaced).toBe(true);
    expect(value(text).mcpServers).toMatchObject({ github: { command: 'y' } });
  });

  it('a file in VS Code\'s shape is not edited: an "mcpServers" beside its "servers" would hide them (decision 327)', () => {
    const vscode = '{ "servers": { "github": { "type": "http", "url": "https://x.test/mcp" } } }';
    const refusal = 'f is in VS Code\'s shape ({"servers": …}): edit its "servers" by hand; an "mcpServers" added beside them would hide them';
    expect(() => addServerEntry(vscode, 'other', { command: 'y' }, { label: 'f' })).toThrow(refusal);
    expect(() => removeServerEntry(vscode, 'github', 'f')).toThrow(refusal);
  });

  it('remove names a missing server', () => {
    expect(() => removeServerEntry(SETTINGS, 'nope', 'f')).toThrow('"nope" is not defined in f');
  });

  it('disable writes disabled: true; enable removes the key, giving back the same text', () => {
    const disabled = setServerDisabled(SETTINGS, 'memory', true, 'f');
    expect(value(disabled).mcpServers).toMatchObject({ memory: { disabled: true } });
    expect(setServerDisabled(disabled, 'memory', false, 'f')).toBe(SETTINGS);
    expect(() => setServerDisabled('{"mcpServers": {"s": "x"}}', 's', true, 'f')).toThrow('not an object');
  });

  it('trust rules set a folder key', () => {
    const text = setTrustRule('{\n  // mine\n  "/a": "DO_NOT_TRUST"\n}\n', '/b', 'TRUST_FOLDER', 'f');
    expect(text).toBe('{\n  // mine\n  "/a": "DO_NOT_TRUST",\n  "/b": "TRUST_FOLDER"\n}\n');
    expect(setTrustRule(text, '/a', 'TRUST_FOLDER', 'f')).toContain('"/a": "TRUST_FOLDER",');
  });
});
