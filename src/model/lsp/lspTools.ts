import type { ServerCapabilities } from 'vscode-languageserver-protocol';
import { fieldProblems, isBoolean, isNonEmptyString, isPlainObject, type FieldCheck, type FieldRule } from '../fieldChecks.js';
import type { QualifiedTool } from '../report/status.js';

/**
 * The agent's code intelligence (decision 155): while a language server is connected, its
 * operations are offered as tools beside the MCP servers' ones, named `lsp__…`. They are offered
 * once for all language servers, not per server: the file's extension picks the server, as it
 * does for the host's own `lsp.request`. An MCP tool's name always starts with `mcp__`, so the two
 * never collide.
 */

/** The `server` of every {@link QualifiedTool} of a language server operation. */
export const LSP_TOOLS_SERVER = 'lsp';

const LSP_TOOL_PREFIX = 'lsp__';

export type LspOperation = 'definition' | 'references' | 'hover' | 'document_symbols' | 'workspace_symbols' | 'diagnostics';

/** A language server capability that decides whether an operation is offered. */
export type LspProvider = 'definitionProvider' | 'referencesProvider' | 'hoverProvider' | 'documentSymbolProvider' | 'workspaceSymbolProvider';

interface JsonSchemaProperty {
  type: 'string' | 'integer' | 'boolean';
  description: string;
  minLength?: number;
  minimum?: number;
}

interface OperationSpec {
  operation: LspOperation;
  title: string;
  description: string;
  properties: Readonly<Record<string, JsonSchemaProperty>>;
  required: readonly string[];
  /** The capability some connected server must have; absent: any connected server will do. */
  provider?: LspProvider;
}

const FILE: JsonSchemaProperty = {
  type: 'string',
  minLength: 1,
  description: 'The source file: absolute, or relative to the workspace.',
};
const LINE: JsonSchemaProperty = { type: 'integer', minimum: 1, description: 'Line number, 1-based.' };
const COLUMN: JsonSchemaProperty = {
  type: 'integer',
  minimum: 1,
  description: 'Column, 1-based, counted in characters (a tab, "é" or "🚀" is one). Any column inside the symbol works.',
};
const POSITION = { file: FILE, line: LINE, column: COLUMN };
const LOCATIONS_ANSWER = 'Answers one `path:line:column: source line` line per location (1-based, columns in characters).';

/** Every operation, in the order the tools are offered. */
const OPERATIONS: readonly OperationSpec[] = [
  {
    operation: 'definition',
    title: 'Go to definition',
    description: `Where the symbol at a position in a source file is defined, from the language server for the file's type. ${LOCATIONS_ANSWER}`,
    properties: POSITION,
    required: ['file', 'line', 'column'],
    provider: 'definitionProvider',
  },
  {
    operation: 'references',
    title: 'Find references',
    description: `Every reference to the symbol at a position in a source file, across the workspace. ${LOCATIONS_ANSWER}`,
    properties: {
      ...POSITION,
      includeDeclaration: { type: 'boolean', description: 'Whether the declaration itself is listed too (default true).' },
    },
    required: ['file', 'line', 'column'],
    provider: 'referencesProvider',
  },
  {
    operation: 'hover',
    title: 'Hover',
    description: 'The type and documentation of the symbol at a position in a source file, as an editor shows them on hover (Markdown).',
    properties: POSITION,
    required: ['file', 'line', 'column'],
    provider: 'hoverProvider',
  },
  {
    operation: 'document_symbols',
    title: 'Document outline',
    description:
      'The outline of a source file: its classes, functions, methods, variables…, nested as in the file, each with its kind and `line:column` (1-based).',
    properties: { file: FILE },
    required: ['file'],
    provider: 'documentSymbolProvider',
  },
  {
    operation: 'workspace_symbols',
    title: 'Find symbols in the workspace',
    description: 'Symbols across the workspace whose name matches a query (fuzzily, as the language server matches), each with its kind and `path:line:column`.',
    properties: {
      query: { type: 'string', minLength: 1, description: 'A symbol name or part of one.' },
      server: { type: 'string', minLength: 1, description: 'Ask only this language server (its name); default: every one that can answer.' },
    },
    required: ['query'],
    provider: 'workspaceSymbolProvider',
  },
  {
    operation: 'diagnostics',
    title: 'Diagnostics',
    description:
      'Errors and warnings the language servers report: for one source file, or without `file` every one reported so far. One `path:line:column severity [source code] message` line each.',
    properties: { file: FILE },
    required: [],
  },
];

function qualifiedToolOf(spec: OperationSpec): QualifiedTool {
  return {
    name: `${LSP_TOOL_PREFIX}${spec.operation}`,
    server: LSP_TOOLS_SERVER,
    tool: spec.operation,
    title: spec.title,
    description: spec.description,
    inputSchema: { type: 'object', properties: spec.properties, required: spec.required, additionalProperties: false },
    annotations: { title: spec.title, readOnlyHint: true, openWorldHint: false },
    // They only read, and only from servers the user has admitted (approved where gated): asking
    // before each call would add a prompt and no safety (decision 155).
    trust: true,
  };
}

/** One tool object per operation, made once: equal inputs give identical tools. */
const TOOLS: readonly QualifiedTool[] = OPERATIONS.map(qualifiedToolOf);

/**
 * The tools to offer while servers with `capabilities` are connected, in a fixed order: an
 * operation is offered while some server can answer it, `diagnostics` while any server is
 * connected; no server, no tools. The same capabilities give the same tool objects.
 */
export function lspToolsFor(capabilities: readonly ServerCapabilities[]): readonly QualifiedTool[] {
  if (capabilities.length === 0) return [];
  return TOOLS.filter((_, i) => {
    const provider = OPERATIONS[i]!.provider;
    return provider === undefined || capabilities.some((c) => Boolean(c[provider]));
  });
}

/** The capability an operation needs of the server that answers it (none for `diagnostics`). */
export function providerOf(operation: LspOperation): LspProvider | undefined {
  return OPERATIONS.find((spec) => spec.operation === operation)!.provider;
}

/** `lsp__hover` → `hover`; undefined for a name that is not one of these tools. */
export function lspOperationOf(toolName: string): LspOperation | undefined {
  if (!toolName.startsWith(LSP_TOOL_PREFIX)) return undefined;
  const operation = toolName.slice(LSP_TOOL_PREFIX.length);
  return OPERATIONS.some((spec) => spec.operation === operation) ? (operation as LspOperation) : undefined;
}

/** A position as the agent gives it: a file and 1-based line and column (in characters). */
export interface FilePosition {
  file: string;
  line: number;
  column: number;
}

/** The arguments of one call, checked. */
export type LspToolCall =
  | ({ operation: 'definition' | 'hover' } & FilePosition)
  | ({ operation: 'references'; includeDeclaration: boolean } & FilePosition)
  | { operation: 'document_symbols'; file: string }
  | { operation: 'workspace_symbols'; query: string; server?: string }
  | { operation: 'diagnostics'; file?: string };

const isPositiveInteger: FieldCheck = (value) => typeof value === 'number' && Number.isInteger(value) && value >= 1;

const CHECKS: Readonly<Record<JsonSchemaProperty['type'], readonly [FieldCheck, string]>> = {
  string: [isNonEmptyString, 'a non-empty string'],
  integer: [isPositiveInteger, 'a positive whole number (1-based)'],
  boolean: [isBoolean, 'true or false'],
};

/**
 * Checks `args` against the operation's schema: required arguments present, each of its type
 * (strings non-empty, line and column whole numbers from 1), nothing else. Every problem is
 * named at once, so one corrected call suffices.
 */
export function checkLspToolArgs(operation: LspOperation, args: unknown): { ok: true; call: LspToolCall } | { ok: false; error: string } {
  const spec = OPERATIONS.find((s) => s.operation === operation)!;
  if (!isPlainObject(args)) return { ok: false, error: `lsp__${operation}: arguments must be an object` };
  const rules: FieldRule[] = Object.entries(spec.properties).map(([name, property]) => [name, ...CHECKS[property.type]]);
  const problems = [
    ...spec.required.filter((name) => !Object.hasOwn(args, name) || args[name] === undefined).map((name) => `${name} is required`),
    ...fieldProblems(args, rules),
    ...Object.keys(args)
      .filter((name) => !Object.hasOwn(spec.properties, name))
      .map((name) => `unknown argument ${JSON.stringify(name)} (expected ${Object.keys(spec.properties).join(', ')})`),
  ];
  if (problems.length > 0) return { ok: false, error: `lsp__${operation}: ${problems.join('; ')}` };
  return { ok: true, call: callOf(operation, args) };
}

function callOf(operation: LspOperation, args: Record<string, unknown>): LspToolCall {
  switch (operation) {
    case 'definition':
    case 'hover':
      return { operation, ...positionOf(args) };
    case 'references':
      return { operation, ...positionOf(args), includeDeclaration: (args.includeDeclaration as boolean | undefined) ?? true };
    case 'document_symbols':
      return { operation, file: args.file as string };
    case 'workspace_symbols':
      return args.server === undefined ? { operation, query: args.query as string } : { operation, query: args.query as string, server: args.server as string };
    case 'diagnostics':
      return args.file === undefined ? { operation } : { operation, file: args.file as string };
  }
}

function positionOf(args: Record<string, unknown>): FilePosition {
  return { file: args.file as string, line: args.line as number, column: args.column as number };
}
