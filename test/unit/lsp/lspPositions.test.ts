import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { characterToColumn, columnToCharacter, positionEncodingOf, splitLines, type PositionEncoding } from '../../../src/model/lsp/lspPositions.js';

// "const 日本 = '🚀'; greet" — 日 and 本 are one UTF-16 unit and three UTF-8 bytes each, 🚀 two units and four bytes.
const LINE = "const 日本 = '🚀'; greet";
const GREET_COLUMN = 17;

describe('positionEncodingOf', () => {
  it('is UTF-16 unless the server chose another encoding', () => {
    expect(positionEncodingOf({})).toBe('utf-16');
    expect(positionEncodingOf({ positionEncoding: 'utf-16' })).toBe('utf-16');
    expect(positionEncodingOf({ positionEncoding: 'utf-8' })).toBe('utf-8');
    expect(positionEncodingOf({ positionEncoding: 'utf-32' })).toBe('utf-32');
    expect(positionEncodingOf({ positionEncoding: 'latin-1' })).toBe('utf-16');
  });
});

describe('splitLines', () => {
  it('ends a line at \\n, \\r\\n and \\r alike', () => {
    expect(splitLines('a\nb\r\nc\rd')).toEqual(['a', 'b', 'c', 'd']);
    expect(splitLines('a\n')).toEqual(['a', '']);
    expect(splitLines('')).toEqual(['']);
  });
});

describe('columnToCharacter', () => {
  it('is the column minus one on an ASCII line, in every encoding', () => {
    for (const encoding of ['utf-8', 'utf-16', 'utf-32'] as const) {
      expect(columnToCharacter('\tlet x = 1;', 1, encoding)).toBe(0);
      expect(columnToCharacter('\tlet x = 1;', 2, encoding)).toBe(1);
      expect(columnToCharacter('\tlet x = 1;', 11, encoding)).toBe(10);
    }
  });

  it('counts code units after non-ASCII characters', () => {
    expect([...LINE][GREET_COLUMN - 1]).toBe('g');
    expect(columnToCharacter(LINE, GREET_COLUMN, 'utf-16')).toBe(17);
    expect(columnToCharacter(LINE, GREET_COLUMN, 'utf-8')).toBe(23);
    expect(columnToCharacter(LINE, GREET_COLUMN, 'utf-32')).toBe(16);
    // Right after 🚀: its two UTF-16 units.
    expect(columnToCharacter(LINE, 14, 'utf-16')).toBe(14);
    expect(columnToCharacter(LINE, 13, 'utf-16')).toBe(12);
  });

  it('allows the end of the line and refuses beyond it', () => {
    const length = [...LINE].length;
    expect(columnToCharacter(LINE, length + 1, 'utf-16')).toBe(LINE.length);
    expect(columnToCharacter(LINE, length + 2, 'utf-16')).toBeUndefined();
    expect(columnToCharacter('', 1, 'utf-16')).toBe(0);
    expect(columnToCharacter('', 2, 'utf-16')).toBeUndefined();
  });
});

describe('characterToColumn', () => {
  it('is the inverse of columnToCharacter on non-ASCII text', () => {
    expect(characterToColumn(LINE, 17, 'utf-16')).toBe(GREET_COLUMN);
    expect(characterToColumn(LINE, 23, 'utf-8')).toBe(GREET_COLUMN);
    expect(characterToColumn(LINE, 16, 'utf-32')).toBe(GREET_COLUMN);
  });

  it('counts a position inside a character as that character', () => {
    // 🚀 is column 13 and UTF-16 units 12–13.
    expect(characterToColumn(LINE, 13, 'utf-16')).toBe(13);
    expect(characterToColumn('日', 2, 'utf-8')).toBe(1);
  });

  it('keeps a position past the end past it', () => {
    expect(characterToColumn('ab', 2, 'utf-16')).toBe(3);
    expect(characterToColumn('ab', 5, 'utf-16')).toBe(6);
  });

  it('round-trips every column of any line, in every encoding', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.constantFrom<PositionEncoding>('utf-8', 'utf-16', 'utf-32'), fc.nat(), (text, encoding, n) => {
        const line = text.replace(/[\r\n]/g, ' ');
        const column = (n % ([...line].length + 1)) + 1;
        const character = columnToCharacter(line, column, encoding);
        expect(character).toBeDefined();
        expect(characterToColumn(line, character!, encoding)).toBe(column);
      }),
    );
  });
});
