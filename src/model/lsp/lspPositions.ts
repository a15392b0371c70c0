import type { ServerCapabilities } from 'vscode-languageserver-protocol';

/**
 * Positions between an agent and a language server. An agent counts columns in characters (code
 * points: "é", "日" and "🚀" are one each, so is a tab); LSP counts a line's `character` in the
 * code units of the position encoding the server chose, UTF-16 unless it said otherwise. The two
 * differ on every line with a character outside the BMP, so each conversion reads the line's text.
 */

/** The position encodings of LSP 3.17 (`PositionEncodingKind`). */
export type PositionEncoding = 'utf-8' | 'utf-16' | 'utf-32';

/** The encoding a server's positions use: the one it announced, else LSP's default, UTF-16. */
export function positionEncodingOf(capabilities: ServerCapabilities): PositionEncoding {
  const chosen = capabilities.positionEncoding;
  return chosen === 'utf-8' || chosen === 'utf-32' ? chosen : 'utf-16';
}

/** A document's lines as LSP counts them: `\r\n`, `\r` and `\n` each end one. */
export function splitLines(text: string): string[] {
  return text.split(/\r\n|\r|\n/);
}

function unitsOf(codePoint: number, encoding: PositionEncoding): number {
  if (encoding === 'utf-32') return 1;
  if (encoding === 'utf-16') return codePoint > 0xffff ? 2 : 1;
  return codePoint < 0x80 ? 1 : codePoint < 0x800 ? 2 : codePoint < 0x10000 ? 3 : 4;
}

/**
 * The LSP `character` of 1-based `column` (in code points) on `lineText`, or undefined when the
 * column lies past the line's end (one past its last character is the end, and allowed).
 */
export function columnToCharacter(lineText: string, column: number, encoding: PositionEncoding): number | undefined {
  let units = 0;
  let seen = 0;
  for (const char of lineText) {
    if (seen === column - 1) return units;
    units += unitsOf(char.codePointAt(0)!, encoding);
    seen++;
  }
  return seen === column - 1 ? units : undefined;
}

/**
 * The 1-based column (in code points) of LSP `character` on `lineText`. A position inside a
 * character (half of a surrogate pair) counts as that character; one past the end stays past it,
 * so a column always converts back to the character it came from.
 */
export function characterToColumn(lineText: string, character: number, encoding: PositionEncoding): number {
  let units = 0;
  let column = 1;
  for (const char of lineText) {
    if (units >= character) return column;
    const next = units + unitsOf(char.codePointAt(0)!, encoding);
    if (next > character) return column;
    units = next;
    column++;
  }
  return column + (character - units);
}
