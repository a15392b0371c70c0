import { createScanner, parseTree, printParseErrorCode, type Node, type ParseError, type SyntaxKind } from 'jsonc-parser';
import { setOwn } from '../ownProperties.js';

/** A settings-like file, read: an object, nothing (missing file), or why it cannot be used. */
export type JsoncReadResult =
  | { ok: true; value: Record<string, unknown> | undefined }
  | { ok: false; error: string; line?: number; column?: number };

/** Human words for jsonc-parser's error codes; the code name follows in parentheses. */
const PARSE_ERROR_WORDS: Readonly<Record<string, string>> = {
  InvalidSymbol: 'unexpected character',
  InvalidNumberFormat: 'invalid number',
  PropertyNameExpected: 'expected a property name in double quotes',
  ValueExpected: 'expected a value',
  ColonExpected: 'expected ":" after the property name',
  CommaExpected: 'expected "," between entries',
  CloseBraceExpected: 'expected "}" to close the object',
  CloseBracketExpected: 'expected "]" to close the list',
  EndOfFileExpected: 'unexpected content after the end of the JSON value',
  InvalidCommentToken: 'invalid comment',
  UnexpectedEndOfComment: 'unterminated comment (missing "*/")',
  UnexpectedEndOfString: 'unterminated string (missing closing quote)',
  UnexpectedEndOfNumber: 'incomplete number',
  InvalidUnicode: 'invalid \\u escape',
  InvalidEscapeCharacter: 'invalid escape sequence',
  InvalidCharacter: 'invalid character in a string (control characters must be escaped)',
};

/**
 * Deepest nesting of objects and lists a file may have. Settings need a handful of levels; the
 * parser and everything after it (comparisons, hashes) recurse, and tens of thousands of levels
 * overflow the stack.
 */
export const MAX_NESTING = 1000;

/**
 * Parses JSONC text (comments and trailing commas allowed) whose top level must be an object.
 * `label` names the file in messages: `label:3:14: expected a value (ValueExpected)`.
 * Keys such as `__proto__` become own properties, never prototypes.
 */
export function parseJsoncObject(text: string, label: string): JsoncReadResult {
  const plain = plainJsonObject(text);
  if (plain !== undefined) return { ok: true, value: plain };
  const tooDeep = firstOffsetDeeperThan(text, MAX_NESTING);
  if (tooDeep !== undefined) {
    const { line, column } = lineAndColumn(text, tooDeep);
    return { ok: false, error: `${label}:${line}:${column}: nested more than ${MAX_NESTING} levels deep`, line, column };
  }
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false });
  const first = errors[0];
  if (first !== undefined) {
    // Nothing but whitespace and comments: common for a moment while an editor rewrites a file.
    if (root === undefined && first.offset >= text.length) {
      return { ok: false, error: `${label}: the file is empty (expected a JSON object such as {})` };
    }
    const { line, column } = lineAndColumn(text, first.offset);
    const code = printParseErrorCode(first.error);
    const words = PARSE_ERROR_WORDS[code] ?? 'syntax error';
    return { ok: false, error: `${label}:${line}:${column}: ${words} (${code})`, line, column };
  }
  if (root === undefined) {
    return { ok: false, error: `${label}: the file has no JSON value (expected a JSON object such as {})` };
  }
  if (root.type !== 'object') {
    const found = root.type === 'array' ? 'a list' : root.type === 'null' ? 'null' : `a ${root.type}`;
    return { ok: false, error: `${label}: the top level must be a JSON object ({ … }), found ${found}` };
  }
  return { ok: true, value: toValue(root) as Record<string, unknown> };
}

/**
 * The value of `text` when it is plain JSON (no comments, no trailing commas: what tools and most
 * people write) with an object at the top, nested at most {@link MAX_NESTING} deep; else
 * `undefined`, and the JSONC parser decides, with its line and column for any error. `JSON.parse`
 * gives the same value several times faster — a 20,000-entry file in tens of ms instead of
 * hundreds — and keeps `__proto__` as an own data property, as {@link toValue} does.
 */
function plainJsonObject(text: string): Record<string, unknown> | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  return deeperThan(value, MAX_NESTING) ? undefined : (value as Record<string, unknown>);
}

/** Whether objects and arrays in `value` nest deeper than `limit` (the top one is level 1). Iterative. */
function deeperThan(value: object, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const [item, depth] = next;
    if (typeof item !== 'object' || item === null) continue;
    if (depth > limit) return true;
    for (const child of Array.isArray(item) ? item : Object.values(item)) if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
  }
  return false;
}

/** jsonc-parser's `SyntaxKind` values (a const enum, which isolated modules cannot read). */
const TOKEN = {
  openBrace: 1 as SyntaxKind,
  closeBrace: 2 as SyntaxKind,
  openBracket: 3 as SyntaxKind,
  closeBracket: 4 as SyntaxKind,
  eof: 17 as SyntaxKind,
} as const;

/**
 * Where the nesting of `{` and `[` first goes deeper than `limit` (brackets in strings and
 * comments do not count), or `undefined`. Iterative, so any depth is safe to measure.
 */
function firstOffsetDeeperThan(text: string, limit: number): number | undefined {
  const scanner = createScanner(text, true);
  let depth = 0;
  for (let token = scanner.scan(); token !== TOKEN.eof; token = scanner.scan()) {
    if (token === TOKEN.openBrace || token === TOKEN.openBracket) {
      depth += 1;
      if (depth > limit) return scanner.getTokenOffset();
    } else if (token === TOKEN.closeBrace || token === TOKEN.closeBracket) {
      depth -= 1;
    }
  }
  return undefined;
}

/** Builds the value of a parse tree node; properties are defined, so `__proto__` stays data. */
function toValue(node: Node): unknown {
  switch (node.type) {
    case 'object': {
      const object: Record<string, unknown> = {};
      for (const property of node.children ?? []) {
        const [key, value] = property.children ?? [];
        if (key === undefined || value === undefined) continue;
        setOwn(object, String(key.value), toValue(value));
      }
      return object;
    }
    case 'array':
      return (node.children ?? []).map(toValue);
    default:
      return node.value as unknown;
  }
}

/** 1-based line and column of an offset; `\n`, `\r\n` and `\r` end lines. */
function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  const end = Math.min(offset, text.length);
  for (let i = 0; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x0a || (c === 0x0d && text.charCodeAt(i + 1) !== 0x0a)) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: end - lineStart + 1 };
}
