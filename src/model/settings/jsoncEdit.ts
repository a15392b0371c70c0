import { applyEdits, createScanner, findNodeAtLocation, modify, parseTree, type Edit, type Node, type SyntaxKind } from 'jsonc-parser';
import { parseJsoncObject } from './parseJsonc.js';
import { jsonEqual } from '../ownProperties.js';

/** An edit that cannot be made (the file does not parse, a key on the path is not an object): nothing is written. */
export class JsoncEditError extends Error {
  override readonly name = 'JsoncEditError';
}

/** How a file is laid out, so an inserted block looks like its neighbours. */
export interface JsoncStyle {
  /** One level of indentation: a tab or a run of spaces. */
  indent: string;
  eol: '\n' | '\r\n';
}

/**
 * The file's indentation unit (the first indented line that starts a key or value) and line
 * ending; two spaces and `\n` when the file shows none.
 */
export function detectStyle(text: string): JsoncStyle {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const indented = /\n([ \t]+)["{[\]}]/.exec(text)?.[1];
  const indent = indented === undefined ? '  ' : indented.startsWith('\t') ? '\t' : indented;
  return { indent, eol };
}

/**
 * `text` with the property at `path` set to `value` (a JSON value), every other byte kept:
 * comments, blank lines, key order, the layout of other entries. A missing parent object on the
 * path is created. A new property goes after the last one of its object, on its own lines with the
 * file's indentation; a replaced value is laid out at the indentation of its key. Throws
 * {@link JsoncEditError} when `text` does not parse as a JSONC object or a key on the path is
 * not an object. Empty text counts as `{}`. `label` names the file in errors.
 */
export function setJsoncProperty(text: string, path: readonly string[], value: unknown, label: string): string {
  const source = text.trim() === '' ? '{}\n' : text;
  const root = parseEditable(source, label);
  const style = detectStyle(source);
  let parent = root;
  let depth = 0;
  for (; depth < path.length - 1; depth++) {
    const child = findNodeAtLocation(parent, [path[depth]!]);
    if (child === undefined) break;
    parent = objectAt(child, path.slice(0, depth + 1), label);
  }
  // Keys missing on the way down become one nested value inserted where the path stops.
  let inserted = value;
  for (let i = path.length - 1; i > depth; i--) inserted = { [path[i]!]: inserted };
  const key = path[depth]!;
  const existing = depth === path.length - 1 ? findNodeAtLocation(parent, [key]) : undefined;
  const edits =
    existing === undefined ? insertProperty(source, parent, key, inserted, style) : replaceValue(source, existing, inserted, style);
  return checked(applyEdits(source, edits), path, value, label);
}

/**
 * `text` without the property at `path` (unchanged when it is not there). A property on lines
 * of its own leaves with those lines (its trailing comment too); other comments stay. Throws
 * {@link JsoncEditError} like {@link setJsoncProperty}.
 */
export function removeJsoncProperty(text: string, path: readonly string[], label: string): string {
  const root = parseEditable(text, label);
  let parent = root;
  for (let depth = 0; depth < path.length - 1; depth++) {
    const child = findNodeAtLocation(parent, [path[depth]!]);
    if (child === undefined) return text;
    parent = objectAt(child, path.slice(0, depth + 1), label);
  }
  const value = findNodeAtLocation(parent, [path[path.length - 1]!]);
  if (value?.parent === undefined) return text;
  return checked(applyEdits(text, removeProperty(text, parent, value.parent)), path, undefined, label);
}

function parseEditable(text: string, label: string): Node {
  const parsed = parseJsoncObject(text, label);
  if (!parsed.ok) throw new JsoncEditError(parsed.error);
  const root = parseTree(text, [], { allowTrailingComma: true, disallowComments: false });
  if (root?.type !== 'object') throw new JsoncEditError(`${label}: the top level must be a JSON object`);
  return root;
}

function objectAt(node: Node, path: readonly string[], label: string): Node {
  if (node.type === 'object') return node;
  const found = node.type === 'array' ? 'a list' : node.type;
  throw new JsoncEditError(`${label}: "${path.join('.')}" must be an object, found ${found}; fix it first`);
}

/** The edited text must parse and hold exactly what was set: never write a file this module broke. */
function checked(text: string, path: readonly string[], value: unknown, label: string): string {
  const parsed = parseJsoncObject(text, label);
  let current: unknown = parsed.ok ? parsed.value : undefined;
  for (const key of path) {
    current = current !== null && typeof current === 'object' && Object.hasOwn(current, key) ? (current as Record<string, unknown>)[key] : undefined;
  }
  if (!parsed.ok || !jsonEqual(current, value)) throw new JsoncEditError(`${label}: the edit could not be made safely; nothing was written`);
  return text;
}

/** `value` as JSON laid out in the file's style, its continuation lines indented by `base`. */
function layout(value: unknown, base: string, style: JsoncStyle): string {
  return JSON.stringify(value, null, style.indent).split('\n').join(style.eol + base);
}

/** The whitespace that starts the line of `offset`, if only whitespace precedes `offset` on it. */
function leadingIndent(text: string, offset: number): string | undefined {
  const lineStart = Math.max(text.lastIndexOf('\n', offset - 1) + 1, 0);
  const before = text.slice(lineStart, offset);
  return /^[ \t]*$/.test(before) ? before : undefined;
}

/** The whitespace that starts the line of `offset`, whatever follows it. */
function lineIndent(text: string, offset: number): string {
  const lineStart = Math.max(text.lastIndexOf('\n', offset - 1) + 1, 0);
  return /^[ \t]*/.exec(text.slice(lineStart, offset))?.[0] ?? '';
}

/** jsonc-parser's `SyntaxKind` values (a const enum, which isolated modules cannot read). */
const TOKEN = {
  comma: 5 as SyntaxKind,
  lineComment: 12 as SyntaxKind,
  blockComment: 13 as SyntaxKind,
  lineBreak: 14 as SyntaxKind,
  whitespace: 15 as SyntaxKind,
} as const;

/**
 * What follows a value on its line: the offset of a comma (if one comes before anything else
 * but whitespace and comments) and of the line break that ends the line (if nothing but
 * whitespace, that comma and single-line comments comes first).
 */
function restOfLine(text: string, offset: number): { comma?: number; lineBreak?: number; lineEnd?: number } {
  const scanner = createScanner(text, false);
  scanner.setPosition(offset);
  const found: { comma?: number; lineBreak?: number; lineEnd?: number } = {};
  for (;;) {
    const token = scanner.scan();
    if (token === TOKEN.whitespace || token === TOKEN.lineComment) continue;
    if (token === TOKEN.blockComment && !/[\r\n]/.test(scanner.getTokenValue())) continue;
    if (token === TOKEN.comma && found.comma === undefined) {
      found.comma = scanner.getTokenOffset();
      continue;
    }
    if (token === TOKEN.lineBreak) {
      found.lineBreak = scanner.getTokenOffset();
      found.lineEnd = scanner.getTokenOffset() + scanner.getTokenLength();
    }
    return found;
  }
}

function insertProperty(text: string, object: Node, key: string, value: unknown, style: JsoncStyle): Edit[] {
  const children = object.children ?? [];
  const last = children[children.length - 1];
  if (last === undefined) {
    // `{}` (or braces around comments): the property goes right after `{`, on a line of its own.
    const inner = lineIndent(text, object.offset) + style.indent;
    const between = text.slice(object.offset + 1, object.offset + object.length - 1);
    const property = `${JSON.stringify(key)}: ${layout(value, inner, style)}`;
    if (between.trim() === '') {
      const outer = lineIndent(text, object.offset);
      return [{ offset: object.offset + 1, length: between.length, content: `${style.eol}${inner}${property}${style.eol}${outer}` }];
    }
    return [{ offset: object.offset + 1, length: 0, content: `${style.eol}${inner}${property}` }];
  }
  const indent = leadingIndent(text, last.offset);
  const end = last.offset + last.length;
  const rest = restOfLine(text, end);
  if (indent === undefined || rest.lineBreak === undefined) {
    // A compact layout (`{"a": 1, "b": 2}`): a compact insertion, as jsonc-parser makes it.
    return modify(text, pathOf(object, key), value, {});
  }
  const property = `${style.eol}${indent}${JSON.stringify(key)}: ${layout(value, indent, style)}`;
  const edits: Edit[] = [{ offset: rest.lineBreak, length: 0, content: property }];
  if (rest.comma === undefined) edits.unshift({ offset: end, length: 0, content: ',' });
  return edits;
}

function replaceValue(text: string, value: Node, next: unknown, style: JsoncStyle): Edit[] {
  const indent = value.parent === undefined ? undefined : leadingIndent(text, value.parent.offset);
  const content = indent === undefined ? JSON.stringify(next) : layout(next, indent, style);
  return [{ offset: value.offset, length: value.length, content }];
}

function removeProperty(text: string, object: Node, property: Node): Edit[] {
  const children = object.children ?? [];
  const index = children.indexOf(property);
  const indent = leadingIndent(text, property.offset);
  const rest = restOfLine(text, property.offset + property.length);
  if (indent === undefined || rest.lineEnd === undefined) {
    return modify(text, pathOf(object, keyOf(property)), undefined, {});
  }
  const edits: Edit[] = [{ offset: property.offset - indent.length, length: rest.lineEnd - (property.offset - indent.length), content: '' }];
  const previous = children[index - 1];
  if (index === children.length - 1 && previous !== undefined && rest.comma === undefined) {
    // The new last property must not keep a comma other readers (JSON.parse) reject.
    const before = restOfLine(text, previous.offset + previous.length);
    if (before.comma !== undefined) edits.push({ offset: before.comma, length: 1, content: '' });
  }
  return edits;
}

function keyOf(property: Node): string {
  return String(property.children?.[0]?.value);
}

/** The JSON path of a property `key` of `object`, for jsonc-parser's own edits. */
function pathOf(object: Node, key: string): string[] {
  const path: string[] = [key];
  for (let node: Node | undefined = object; node?.parent !== undefined; node = node.parent.parent) {
    path.unshift(keyOf(node.parent));
  }
  return path;
}
