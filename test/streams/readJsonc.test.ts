import { mkdir, writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { MAX_NESTING, parseJsoncObject } from '../../src/model/settings/parseJsonc.js';
import { readJsonc } from '../../src/files/readJsonc.js';
import { tempDirEachTest } from './streamTestKit.js';

describe('parseJsoncObject', () => {
  it('accepts comments and trailing commas', () => {
    const text = '// user settings\n{\n  /* servers */ "mcpServers": { "a": { "command": "x", }, },\n}\n';
    expect(parseJsoncObject(text, 'settings.json')).toEqual({ ok: true, value: { mcpServers: { a: { command: 'x' } } } });
  });

  it.each([
    ['{\n  "a": 1,\n  "b": \n}', 4, 1, 'expected a value (ValueExpected)'],
    ['{\n  "a": 1\n  "b": 2\n}', 3, 3, 'expected "," between entries (CommaExpected)'],
    ['{\n  "a": tru\n}', 2, 8, 'unexpected character (InvalidSymbol)'],
    ['{\r\n  "a": 1,\r\n  "b": @\r\n}', 3, 8, 'unexpected character (InvalidSymbol)'],
    ['{ "a": "unterminated }', 1, 8, 'unterminated string (missing closing quote) (UnexpectedEndOfString)'],
  ])('reports %j at line %i column %i', (text, line, column, words) => {
    const result = parseJsoncObject(text, 'settings.json');
    expect(result).toEqual({ ok: false, line, column, error: `settings.json:${line}:${column}: ${words}` });
  });

  it.each([
    ['[1, 2]', 'found a list'],
    ['null', 'found null'],
    ['"text"', 'found a string'],
    ['42', 'found a number'],
  ])('rejects a top level that is not an object: %s', (text, found) => {
    const result = parseJsoncObject(text, 'f.json');
    expect(result.ok).toBe(false);
    expect(!result.ok && result.error).toBe(`f.json: the top level must be a JSON object ({ … }), ${found}`);
  });

  it.each(['', '   \n', '// only a comment\n'])('calls an empty file empty, not a syntax error: %j', (text) => {
    const result = parseJsoncObject(text, 'f.json');
    expect(result).toEqual({ ok: false, error: 'f.json: the file is empty (expected a JSON object such as {})' });
  });

  it('keeps "__proto__" as a plain key, never as a prototype', () => {
    const result = parseJsoncObject('{ "mcpServers": { "__proto__": { "command": "p" }, "b": {} } }', 'f.json');
    expect(result.ok).toBe(true);
    const servers = (result.ok && result.value?.mcpServers) as Record<string, unknown>;
    expect(Object.keys(servers)).toEqual(['__proto__', 'b']);
    expect(Object.getPrototypeOf(servers)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(servers, '__proto__')?.value).toEqual({ command: 'p' });
  });

  it('plain JSON (read with JSON.parse) gives the value the JSONC parser gives, __proto__ and duplicate keys included', () => {
    const jsonc = (text: string) => parseJsoncObject(`${text}\n// a comment makes it JSONC`, 'f.json');
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 4 })), (object) => {
        const text = JSON.stringify(object);
        expect(parseJsoncObject(text, 'f.json')).toStrictEqual(jsonc(text));
      }),
    );
    for (const text of ['{"__proto__": {"a": 1}, "x": {"__proto__": [1]}}', '{"a": 1, "a": 2}', '{"a": "\\ud800 lone"}']) {
      const plain = parseJsoncObject(text, 'f.json');
      expect(plain, text).toStrictEqual(jsonc(text));
      expect(Object.getPrototypeOf(plain.ok && plain.value)).toBe(Object.prototype);
    }
  });

  it('a plain JSON file nested past the limit is refused as before, with its line and column', () => {
    const deep = `{"a": ${'['.repeat(MAX_NESTING)}${']'.repeat(MAX_NESTING)}}`;
    // The top object is level 1: the first bracket (column 7) is level 2, so the 1,000th (column 7 + 999) is level 1,001.
    expect(parseJsoncObject(deep, 'f.json')).toMatchObject({ ok: false, error: `f.json:1:${7 + MAX_NESTING - 1}: nested more than ${MAX_NESTING} levels deep` });
    const atLimit = `{"a": ${'['.repeat(MAX_NESTING - 1)}${']'.repeat(MAX_NESTING - 1)}}`;
    expect(parseJsoncObject(atLimit, 'f.json').ok).toBe(true);
  });
});

describe('readJsonc', () => {
  const tmp = tempDirEachTest();

  it('reads a missing file as an empty source', async () => {
    expect(await readJsonc(tmp.path('nope.json'))).toEqual({ ok: true, value: undefined });
  });

  it('reads a file (a UTF-8 BOM is fine)', async () => {
    const file = tmp.path('settings.json');
    await writeFile(file, '\uFEFF{ "a": "ü" }');
    expect(await readJsonc(file)).toEqual({ ok: true, value: { a: 'ü' } });
  });

  it('reads a file of 0 bytes once more before it calls it empty: a save in place truncates first (decision 296)', async () => {
    const file = tmp.path('settings.json');
    await writeFile(file, '');
    // The editor's write lands between the two reads.
    const saved = new Promise<void>((resolve) => setTimeout(() => void writeFile(file, '{ "a": 1 }').then(resolve), 20));
    expect(await readJsonc(file)).toEqual({ ok: true, value: { a: 1 } });
    await saved;
    // Still empty on the second read: empty it is.
    await writeFile(file, '');
    expect(await readJsonc(file)).toEqual({ ok: false, error: `${file}: the file is empty (expected a JSON object such as {})` });
  });

  it('says so when a directory stands where the file should be', async () => {
    const file = tmp.path('settings.json');
    await mkdir(file);
    expect(await readJsonc(file)).toEqual({ ok: false, error: `${file}: is a directory, expected a file` });
  });

  it('says so when the file cannot be read for permissions', async () => {
    const denied = Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' });
    const result = await readJsonc('/etc/x.json', { readFile: () => Promise.reject(denied) });
    expect(result).toEqual({ ok: false, error: '/etc/x.json: permission denied (cannot read the file)' });
  });

  it('rejects bytes that are not UTF-8', async () => {
    const file = tmp.path('settings.json');
    await writeFile(file, Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]));
    expect(await readJsonc(file)).toEqual({
      ok: false,
      error: `${file}: not UTF-8 text (settings files must be saved as UTF-8)`,
    });
  });

  it('names the file, line and column of a syntax error', async () => {
    const file = tmp.path('settings.json');
    await writeFile(file, '{\n  "mcpServers": {\n    "a": { "command": }\n  }\n}\n');
    expect(await readJsonc(file)).toEqual({
      ok: false,
      line: 3,
      column: 23,
      error: `${file}:3:23: expected a value (ValueExpected)`,
    });
  });
});

describe('readJsonc: refusals through the readFile seam', () => {
  it('describes ENOTREG and EFBIG by their reason, or by their code alone', async () => {
    const refused = (code: string, reason?: string) => () =>
      Promise.reject(Object.assign(new Error(`/x/s.json: ${reason ?? ''}`), { code, ...(reason === undefined ? {} : { reason }) }));
    expect(await readJsonc('/x/s.json', { readFile: refused('ENOTREG', 'is a FIFO (named pipe), not a regular file') })).toEqual({
      ok: false,
      error: '/x/s.json: is a FIFO (named pipe), not a regular file',
    });
    expect(await readJsonc('/x/s.json', { readFile: refused('EFBIG') })).toEqual({ ok: false, error: '/x/s.json: file too large' });
    expect(await readJsonc('/x/s.json', { readFile: refused('ENOTREG') })).toEqual({ ok: false, error: '/x/s.json: not a regular file' });
  });
});
