import { isAbsolute, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type {
  Definition,
  DefinitionLink,
  Diagnostic,
  DocumentSymbol,
  Hover,
  Location,
  MarkedString,
  MarkupContent,
  Position,
  SymbolInformation,
  WorkspaceSymbol,
} from 'vscode-languageserver-protocol';
import { characterToColumn, type PositionEncoding } from './lspPositions.js';

/**
 * Language server answers as text a model reads well (decision 155): positions as
 * `relative/path.ts:LINE:COL`, 1-based and counted in characters like the tools' arguments, so a
 * position in an answer can be passed straight back; the source line beside each location; long
 * lists cut with a count of the rest.
 */

/** Pushed or pulled diagnostics of one document (the shape of the document store's cache). */
export interface FileDiagnostics {
  /** The `lsp:NAME` key of the server that reported them. */
  server: string;
  uri: string;
  path: string;
  diagnostics: readonly Diagnostic[];
}

/** What turning a server's positions into text needs besides the answer. */
export interface TextContext {
  /** Paths inside it are shown relative to it. */
  workspace: string;
  /** The answering server's position encoding. */
  encoding: PositionEncoding;
  /** The lines of the document at `uri`, when it could be read; without them columns stay the server's. */
  lines(uri: string): readonly string[] | undefined;
}

/** At most this many locations or symbols are listed; the rest are counted. */
export const MAX_LISTED = 100;
/** At most this many diagnostics are listed. */
export const MAX_DIAGNOSTICS = 200;
const MAX_LINE_TEXT = 200;

/** A `file:` URI as a path relative to the workspace (absolute when outside it); any other URI as it is. */
export function displayPath(uri: string, workspace: string): string {
  if (!uri.startsWith('file:')) return uri;
  const path = fileURLToPath(uri);
  const rel = relative(workspace, path);
  return rel === '' || rel.split(sep)[0] === '..' || isAbsolute(rel) ? path : rel;
}

/** `LINE:COL` of an LSP position, 1-based, the column in characters where the line is known. */
function lineColumn(uri: string, position: Position, context: TextContext): string {
  const lineText = context.lines(uri)?.[position.line];
  const column = lineText === undefined ? position.character + 1 : characterToColumn(lineText, position.character, context.encoding);
  return `${position.line + 1}:${column}`;
}

/** `path:LINE:COL` of an LSP position (see {@link lineColumn}). */
function positionText(uri: string, position: Position, context: TextContext): string {
  return `${displayPath(uri, context.workspace)}:${lineColumn(uri, position, context)}`;
}

/** A definition or references answer as `{uri, start}` pairs (a link points at its target's name). */
export function locationsOf(result: Definition | DefinitionLink[] | Location[] | null | undefined): { uri: string; start: Position }[] {
  if (result === null || result === undefined) return [];
  return (Array.isArray(result) ? result : [result]).map((item: Location | DefinitionLink) =>
    'targetUri' in item ? { uri: item.targetUri, start: item.targetSelectionRange.start } : { uri: item.uri, start: item.range.start },
  );
}

function sourceLine(uri: string, line: number, context: TextContext): string {
  const text = context.lines(uri)?.[line]?.trim();
  if (text === undefined || text === '') return '';
  const chars = [...text];
  return `: ${chars.length > MAX_LINE_TEXT ? `${chars.slice(0, MAX_LINE_TEXT).join('')}…` : text}`;
}

function listed(lines: readonly string[], max: number): string {
  return lines.length > max ? [...lines.slice(0, max), `… and ${lines.length - max} more`].join('\n') : lines.join('\n');
}

/** One `path:LINE:COL: source line` line per location; `empty` when there is none. */
export function formatLocations(
  result: Definition | DefinitionLink[] | Location[] | null | undefined,
  context: TextContext,
  empty: string,
): string {
  const locations = locationsOf(result);
  if (locations.length === 0) return empty;
  return listed(
    locations.map(({ uri, start }) => `${positionText(uri, start, context)}${sourceLine(uri, start.line, context)}`),
    MAX_LISTED,
  );
}

/** A hover's contents as Markdown: markup as given, a language-tagged string as a code block, several joined. */
export function formatHover(result: Hover | null | undefined, empty: string): string {
  if (result === null || result === undefined) return empty;
  const parts = (Array.isArray(result.contents) ? result.contents : [result.contents]).map(hoverPart).filter((part) => part !== '');
  return parts.length === 0 ? empty : parts.join('\n\n');
}

function hoverPart(content: MarkedString | MarkupContent): string {
  if (typeof content === 'string') return content.trim();
  if ('kind' in content) return content.value.trim();
  return `\`\`\`${content.language}\n${content.value.trim()}\n\`\`\``;
}

/** LSP's `SymbolKind` names, lower case, by value (1 = file … 26 = type parameter). */
const SYMBOL_KINDS = [
  'symbol', 'file', 'module', 'namespace', 'package', 'class', 'method', 'property', 'field', 'constructor', 'enum',
  'interface', 'function', 'variable', 'constant', 'string', 'number', 'boolean', 'array', 'object', 'key', 'null',
  'enum member', 'struct', 'event', 'operator', 'type parameter',
] as const;

function kindName(kind: number): string {
  return SYMBOL_KINDS[kind] ?? 'symbol';
}

/** One node of an outline, whichever of the two answer shapes it came from. */
interface OutlineNode {
  name: string;
  kind: number;
  detail?: string;
  /** Where the name is (the whole declaration where the server gave no more). */
  at: Position;
  firstLine: number;
  lastLine: number;
  children: OutlineNode[];
}

/**
 * A document's symbols as an indented tree, one `kind name detail LINE:COL (lines A-B)` line
 * each. `DocumentSymbol[]` is a tree already; `SymbolInformation[]` is flat and names its
 * container, so each symbol goes under the innermost symbol of that name enclosing it.
 */
export function formatDocumentSymbols(result: DocumentSymbol[] | SymbolInformation[] | null | undefined, uri: string, context: TextContext, empty: string): string {
  if (result === null || result === undefined || result.length === 0) return empty;
  const roots = 'location' in result[0]! ? treeOfFlat(result as SymbolInformation[]) : (result as DocumentSymbol[]).map(nodeOfDocumentSymbol);
  const lines: string[] = [];
  const visit = (node: OutlineNode, depth: number): void => {
    const detail = node.detail ? ` ${node.detail}` : '';
    const span = node.lastLine > node.firstLine ? ` (lines ${node.firstLine + 1}-${node.lastLine + 1})` : '';
    lines.push(`${'  '.repeat(depth)}${kindName(node.kind)} ${node.name}${detail} ${lineColumn(uri, node.at, context)}${span}`);
    node.children.forEach((child) => visit(child, depth + 1));
  };
  roots.forEach((root) => visit(root, 0));
  return listed(lines, MAX_LISTED);
}

function nodeOfDocumentSymbol(symbol: DocumentSymbol): OutlineNode {
  const node: OutlineNode = {
    name: symbol.name,
    kind: symbol.kind,
    at: symbol.selectionRange.start,
    firstLine: symbol.range.start.line,
    lastLine: symbol.range.end.line,
    children: (symbol.children ?? []).map(nodeOfDocumentSymbol),
  };
  if (symbol.detail) node.detail = symbol.detail;
  return node;
}

function treeOfFlat(symbols: readonly SymbolInformation[]): OutlineNode[] {
  const nodes = symbols.map((symbol) => ({
    symbol,
    node: {
      name: symbol.name,
      kind: symbol.kind,
      at: symbol.location.range.start,
      firstLine: symbol.location.range.start.line,
      lastLine: symbol.location.range.end.line,
      children: [],
    } satisfies OutlineNode,
  }));
  const roots: OutlineNode[] = [];
  for (const { symbol, node } of nodes) {
    const parent =
      symbol.containerName === undefined || symbol.containerName === ''
        ? undefined
        : nodes
            .filter((other) => other.symbol !== symbol && other.symbol.name === symbol.containerName && encloses(other.symbol, symbol))
            .sort((a, b) => spanOf(a.symbol) - spanOf(b.symbol))[0];
    (parent?.node.children ?? roots).push(node);
  }
  return roots;
}

function encloses(outer: SymbolInformation, inner: SymbolInformation): boolean {
  const [o, i] = [outer.location.range, inner.location.range];
  return comparePositions(o.start, i.start) <= 0 && comparePositions(i.end, o.end) <= 0;
}

function spanOf(symbol: SymbolInformation): number {
  const { start, end } = symbol.location.range;
  return (end.line - start.line) * 1e6 + (end.character - start.character);
}

function comparePositions(a: Position, b: Position): number {
  return a.line - b.line || a.character - b.character;
}

/** One `kind name (in container) path:LINE:COL` line per symbol (a symbol located by URI only shows its path). */
export function formatWorkspaceSymbols(result: readonly (SymbolInformation | WorkspaceSymbol)[] | null | undefined, context: TextContext, empty: string): string {
  if (result === null || result === undefined || result.length === 0) return empty;
  const lines = result.map((symbol) => {
    const container = symbol.containerName ? ` (in ${symbol.containerName})` : '';
    const where = 'range' in symbol.location ? positionText(symbol.location.uri, symbol.location.range.start, context) : displayPath(symbol.location.uri, context.workspace);
    return `${kindName(symbol.kind)} ${symbol.name}${container} ${where}`;
  });
  return listed(lines, MAX_LISTED);
}

/** The documents a workspace symbols answer points into (whose lines its columns need). */
export function urisOfSymbols(result: readonly (SymbolInformation | WorkspaceSymbol)[] | null | undefined): string[] {
  return (result ?? []).map((symbol) => symbol.location.uri);
}

/** `DiagnosticSeverity` names by value; a diagnostic without one counts as an error, as editors show it. */
const SEVERITIES = [undefined, 'error', 'warning', 'info', 'hint'] as const;

/**
 * One `path:LINE:COL severity [source code] message` line per diagnostic, ordered by path and
 * position; a message of several lines continues indented. `contextOf` gives each file's
 * context (the encoding is that of the server that reported it).
 */
export function formatDiagnostics(files: readonly FileDiagnostics[], contextOf: (file: FileDiagnostics) => TextContext, empty: string): string {
  const entries = files.flatMap((file) => file.diagnostics.map((diagnostic) => ({ file, diagnostic })));
  if (entries.length === 0) return empty;
  entries.sort((a, b) => a.file.path.localeCompare(b.file.path) || comparePositions(a.diagnostic.range.start, b.diagnostic.range.start));
  const lines = entries.map(({ file, diagnostic }) => {
    const where = positionText(file.uri, diagnostic.range.start, contextOf(file));
    const severity = SEVERITIES[diagnostic.severity ?? 1] ?? 'error';
    const origin = [diagnostic.source, diagnostic.code].filter((part) => part !== undefined && part !== '').join(' ');
    const text = typeof diagnostic.message === 'string' ? diagnostic.message : diagnostic.message.value;
    const message = text.trim().split(/\r?\n/).join('\n  ');
    return `${where} ${severity}${origin === '' ? '' : ` [${origin}]`} ${message}`;
  });
  return listed(lines, MAX_DIAGNOSTICS);
}
