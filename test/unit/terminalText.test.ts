import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hasUnsafeCharacters, terminalSafe, terminalSafeJson } from '../../src/model/terminalText.js';

const ESC = '\x1b';
const BEL = '\x07';
const ST = `${ESC}\\`;

describe('terminalSafe', () => {
  it.each<[string, string, string]>([
    // what an attacker writes → what the reviewer sees
    ['CR overwrite', 'node server.js --port 3000\rnode -e evil', 'node server.js --port 3000\\rnode -e evil'],
    ['SGR 8 conceal', `safe${ESC}[8mhidden${ESC}[0m`, 'safe\\x1b[8mhidden\\x1b[0m'],
    ['cursor up + erase line', `x${ESC}[1A${ESC}[2Kfake`, 'x\\x1b[1A\\x1b[2Kfake'],
    ['OSC 8 hyperlink, BEL', `${ESC}]8;;https://evil.example${BEL}click${ESC}]8;;${BEL}`, '\\x1b]8;;https://evil.example\\x07click\\x1b]8;;\\x07'],
    ['OSC 8 hyperlink, ST', `${ESC}]8;;https://evil.example${ST}click${ESC}]8;;${ST}`, '\\x1b]8;;https://evil.example\\x1b\\\\click\\x1b]8;;\\x1b\\\\'],
    ['OSC 52 clipboard', `${ESC}]52;c;Y3VybCBldmlsfHNo${BEL}`, '\\x1b]52;c;Y3VybCBldmlsfHNo\\x07'],
    ['OSC 0 window title, ST', `${ESC}]0;pwned${ST}`, '\\x1b]0;pwned\\x1b\\\\'],
    ['DCS', `${ESC}Pq#0;2;0;0;0${ST}`, '\\x1bPq#0;2;0;0;0\\x1b\\\\'],
    ['APC', `${ESC}_payload${ST}`, '\\x1b_payload\\x1b\\\\'],
    ['PM', `${ESC}^privacy${ST}`, '\\x1b^privacy\\x1b\\\\'],
    ['SOS', `${ESC}Xstring${ST}`, '\\x1bXstring\\x1b\\\\'],
    ['8-bit CSI', '\x9b2J', '\\x9b2J'],
    ['8-bit OSC and ST', '\x9d0;t\x9c', '\\x9d0;t\\x9c'],
    ['C1 NEL', 'a\x85b', 'a\\x85b'],
    ['DEL', 'a\x7fb', 'a\\x7fb'],
    ['NUL and BEL', 'a\x00b\x07', 'a\\x00b\\x07'],
    ['backspace', 'rm -rf ~\b\b\b\b\b\b\b\bls', 'rm -rf ~\\x08\\x08\\x08\\x08\\x08\\x08\\x08\\x08ls'],
    ['TAB (decision 162)', 'a\tb', 'a\\tb'],
    ['newline in a one-line value', 'a\n! env    SAFE=1', 'a\\n! env    SAFE=1'],
    ['RLO', 'file\u202egnp.exe', 'file\\u202egnp.exe'],
    ['LRI … PDI', '\u2066x\u2069', '\\u2066x\\u2069'],
    ['ZWSP', 'ev\u200bil', 'ev\\u200bil'],
    ['ZWJ', 'a\u200db', 'a\\u200db'],
    ['BOM', '\ufeffhello', '\\ufeffhello'],
    ['Arabic letter mark', 'a\u061cb', 'a\\u061cb'],
    ['line and paragraph separators', 'a\u2028b\u2029c', 'a\\u2028b\\u2029c'],
    ['tag characters (invisible text)', 'hi\u{e0041}\u{e0042}', 'hi\\u{e0041}\\u{e0042}'],
    ['soft hyphen', 'pay\u00adpal', 'pay\\xadpal'],
    ['lone surrogate', 'a\ud800b', 'a\\ud800b'],
    // Decision 163: in a value that has an escape of ours, a literal backslash is doubled.
    ['literal backslash beside a real ESC', `C:\\tmp\\x1b${ESC}`, 'C:\\\\tmp\\\\x1b\\x1b'],
  ])('%s', (_what, input, shown) => {
    expect(terminalSafe(input)).toBe(shown);
    expect(hasUnsafeCharacters(input)).toBe(true);
  });

  it.each(['Grüße 🚀 日本', 'node server.js --port 3000', 'C:\\Users\\me\\x1b typed literally', 'emoji with VS16 ❤️', 'مرحبا', ''])(
    'leaves plain text as it is: %j',
    (text) => {
      expect(terminalSafe(text)).toBe(text);
      expect(hasUnsafeCharacters(text)).toBe(false);
    },
  );

  it('keeps the newlines of a multi-line text, continuation lines indented', () => {
    expect(terminalSafe('first\nsecond\r\nthird', { multiline: true, indent: '  ' })).toBe('first\n  second\n  third');
    expect(terminalSafe('first\nsecond', { multiline: true })).toBe('first\nsecond');
    expect(hasUnsafeCharacters('first\nsecond\r\n', { multiline: true })).toBe(false);
    expect(hasUnsafeCharacters('first\nsecond')).toBe(true);
  });

  it('still shows a CR that is not part of a line break, and every escape, in a multi-line text', () => {
    expect(terminalSafe(`ok\rfake\n${ESC}[2Kline\r`, { multiline: true, indent: '  ' })).toBe('ok\\rfake\n  \\x1b[2Kline\\r');
    expect(hasUnsafeCharacters('a\rb\n', { multiline: true })).toBe(true);
  });

  it('escapes a newline in a multi-line text that hides one inside an OSC (the OSC stays visible text)', () => {
    expect(terminalSafe(`${ESC}]0;a\nb${BEL}`, { multiline: true })).toBe('\\x1b]0;a\nb\\x07');
  });
});

/** Every character that must never reach a terminal raw (decision 161), `\n` aside. */
const UNSAFE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u;
const nastyChar = fc.constantFrom('\x1b', '\r', '\n', '\t', '\x07', '\x9b', '\x7f', '\x00', '\u202e', '\u2066', '\u200b', '\ufeff', '\u2028', '\\', '[', ']', ';', 'a', 'ü', '🚀');
const nastyText = fc.oneof(fc.string({ unit: 'binary' }), fc.array(nastyChar).map((chars) => chars.join('')));

describe('terminalSafe properties', () => {
  it('never lets an unsafe character through', () => {
    fc.assert(
      fc.property(nastyText, (text) => {
        expect(UNSAFE.test(terminalSafe(text))).toBe(false);
        const multi = terminalSafe(text, { multiline: true, indent: '  ' });
        expect(UNSAFE.test(multi.replace(/\n/g, ''))).toBe(false);
      }),
    );
  });

  it('is the identity on safe text, and idempotent', () => {
    fc.assert(
      fc.property(nastyText, (text) => {
        if (!hasUnsafeCharacters(text)) expect(terminalSafe(text)).toBe(text);
        else expect(terminalSafe(text)).not.toBe(text);
        expect(terminalSafe(terminalSafe(text))).toBe(terminalSafe(text));
      }),
    );
  });

  it('tells apart two texts with escapes (injective once escaped)', () => {
    fc.assert(
      fc.property(nastyText, nastyText, (a, b) => {
        if (a !== b && hasUnsafeCharacters(a) && hasUnsafeCharacters(b)) expect(terminalSafe(a)).not.toBe(terminalSafe(b));
      }),
    );
  });

  it('drops nothing: every code point of the input is in the output, raw or escaped', () => {
    fc.assert(
      fc.property(nastyText, (text) => {
        expect(terminalSafe(text).length).toBeGreaterThanOrEqual(text.length);
      }),
    );
  });
});

describe('terminalSafeJson (decision 168)', () => {
  it('escapes what JSON.stringify leaves raw: C1, DEL, bidi, zero-width, U+2028/9, tags', () => {
    const value = { name: 'a\x9b2Jb\x7f', note: 'file\u202egnp.exe \u200b \u2028 \u{e0041}', esc: '\x1b[2K', plain: 'Grüße 🚀' };
    const json = terminalSafeJson(JSON.stringify(value, null, 2));
    expect(json).toContain('a\\u009b2Jb\\u007f');
    expect(json).toContain('file\\u202egnp.exe \\u200b \\u2028 \\udb40\\udc41');
    expect(json).toContain('\\u001b[2K');
    expect(json).toContain('Grüße 🚀');
    expect(UNSAFE.test(json.replace(/\n/g, ''))).toBe(false);
    expect(JSON.parse(json)).toEqual(value);
  });

  it('is the same JSON value, whatever the strings hold', () => {
    fc.assert(
      fc.property(fc.jsonValue(), nastyText, (value, text) => {
        for (const json of [JSON.stringify({ value, text }), JSON.stringify({ value, text }, null, 2)]) {
          const safe = terminalSafeJson(json);
          expect(JSON.parse(safe)).toEqual(JSON.parse(json));
          expect(UNSAFE.test(safe.replace(/\n/g, ''))).toBe(false);
        }
      }),
    );
  });
});
