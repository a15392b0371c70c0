import type { CallToolResult, Tool } from '@modelcontextprotocol/server';
import type { GatewayView } from './gatewayView.js';
import type { QualifiedTool } from '../report/status.js';
import { DEFAULT_SEARCH_LIMIT, MAX_QUERY_CHARS, MAX_SEARCH_LIMIT, searchTools, type SearchableTool } from '../tools/toolSearch.js';

/**
 * Progressive discovery (decision 216): instead of every tool of every server, the gateway lists
 * three tools of its own — `search_tools`, `call_tool`, `describe_tool` — and a client's model
 * finds the tools it needs by what they do. Pure: what is listed, when, and what the two
 * read-only tools answer; the gateway's client session runs `call_tool` as a direct call.
 *
 *   catalog (view) ──listsProgressively?──▶ no:  tools/list = every tool (as without the flag)
 *                                        └─▶ yes: tools/list = search_tools · call_tool · describe_tool
 *   search_tools({query}) ──rank──▶ [{server, name, description, inputSchema}, …]
 *   call_tool({name, arguments}) ──▶ tools/call name (same route, progress, cancel, forms)
 */

/** `always`: only the three tools, whatever the catalog; `auto`: them while the catalog is over a threshold. */
export type ProgressiveMode = 'always' | 'auto';

/** `auto` lists progressively when the full tools/list would have more tools, or more estimated tokens, than these. */
export interface ProgressiveThresholds {
  tools: number;
  tokens: number;
}

/** Decision 217: 40 tools, or 10,000 tokens (by {@link estimateTokens}), whichever is crossed first. */
export const DEFAULT_PROGRESSIVE_THRESHOLDS: ProgressiveThresholds = { tools: 40, tokens: 10_000 };

export const SEARCH_TOOLS = 'search_tools';
export const CALL_TOOL = 'call_tool';
export const DESCRIBE_TOOL = 'describe_tool';
export type MetaToolName = typeof SEARCH_TOOLS | typeof CALL_TOOL | typeof DESCRIBE_TOOL;
const META_TOOL_NAMES: ReadonlySet<string> = new Set<MetaToolName>([SEARCH_TOOLS, CALL_TOOL, DESCRIBE_TOOL]);

/**
 * The token estimate of decision 217: the characters (UTF-16 code units) of `result` as compact
 * JSON, divided by four, rounded up — the usual rule of thumb for English text and JSON under
 * the tokenizers of current models, and no tokenizer to ship.
 */
export function estimateTokens(result: unknown): number {
  return Math.ceil(JSON.stringify(result).length / 4);
}

/** Whether tools/list shows the three tools rather than `tools` (the full list of a view). */
export function listsProgressively(mode: ProgressiveMode | undefined, tools: readonly Tool[], thresholds: ProgressiveThresholds): boolean {
  if (mode === undefined) return false;
  if (mode === 'always' || tools.length > thresholds.tools) return true;
  return estimateTokens({ tools }) > thresholds.tokens;
}

/** What the gateway answers tools/list and its own tools from; one per view. */
export interface ToolCatalog {
  readonly mode: ProgressiveMode | undefined;
  readonly progressive: boolean;
  /** What tools/list answers: the view's tools, or the three. */
  readonly listed: readonly Tool[];
  /** The view's tools under their exposed names, for `search_tools` (one array per view: its index is kept). */
  readonly searchable: readonly SearchableTool[];
  /** Exposed name → the tool as a full listing shows it, for `describe_tool`. */
  readonly byName: ReadonlyMap<string, Tool>;
  /** The view's routes: exposed name → qualified name and server. */
  readonly routes: GatewayView['toolRoutes'];
}

/**
 * The catalog of `view`, whose tools the library lists as `tools` (their own names are the
 * index's name field; a view knows only the exposed ones).
 */
export function toolCatalog(
  view: GatewayView,
  tools: readonly QualifiedTool[],
  mode: ProgressiveMode | undefined,
  thresholds: ProgressiveThresholds = DEFAULT_PROGRESSIVE_THRESHOLDS,
): ToolCatalog {
  const progressive = listsProgressively(mode, view.tools, thresholds);
  if (mode === undefined) return { mode, progressive, listed: view.tools, searchable: [], byName: new Map(), routes: view.toolRoutes };
  const own = new Map(tools.map((t) => [t.name, t.tool]));
  const searchable: SearchableTool[] = [];
  const byName = new Map<string, Tool>();
  for (const tool of view.tools) {
    const route = view.toolRoutes.get(tool.name);
    if (route === undefined) continue;
    byName.set(tool.name, tool);
    const entry: SearchableTool = { name: tool.name, server: route.server, tool: own.get(route.qualified) ?? tool.name, inputSchema: tool.inputSchema };
    if (tool.description !== undefined) entry.description = tool.description;
    searchable.push(entry);
  }
  const listed = progressive ? metaTools() : view.tools;
  return { mode, progressive, listed, searchable, byName, routes: view.toolRoutes };
}

/**
 * The three tools, as tools/list shows them: the same whatever the catalog (decision 314). A
 * server's name is text its settings entry chose — a cloned repository's, for a gated scope — so
 * no server's name, count or text is in the gateway's own tools, where a model reads them as the
 * gateway's words. `search_tools` tells the model to search; it learns the servers from the hits,
 * each of which says its server.
 */
export function metaTools(): Tool[] {
  return [
    {
      name: SEARCH_TOOLS,
      title: 'Search tools',
      description:
        'Finds tools by what they do. The tools of the servers behind this gateway are not listed, to save context: search for ' +
        'what you need, by what the tool does, what it acts on, or the service or server it belongs to. Say it in a few words, ' +
        'e.g. "create a GitHub issue" or "query the orders table"; the best matches come back first, each with its server, name, ' +
        'description and input schema. Run one with call_tool. If none fits, search again with other words.',
      inputSchema: {
        type: 'object',
        properties: {
          query: { type: 'string', description: `What you want to do, in a few words (the first ${MAX_QUERY_CHARS} characters are read).` },
          limit: {
            type: 'integer',
            minimum: 1,
            maximum: MAX_SEARCH_LIMIT,
            description: `How many matches at most (default ${DEFAULT_SEARCH_LIMIT}).`,
          },
        },
        required: ['query'],
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    {
      name: CALL_TOOL,
      title: 'Call a tool',
      description:
        'Runs a tool found with search_tools: "name" exactly as search_tools gave it, "arguments" as its input schema asks. ' +
        "Answers with the tool's own result, as if the tool had been called directly.",
      inputSchema: {
        type: 'object',
        properties: {
          name: { type: 'string', description: 'The tool to run, as search_tools named it.' },
          arguments: { type: 'object', description: "The tool's arguments (see its input schema)." },
        },
        required: ['name'],
      },
    },
    {
      name: DESCRIBE_TOOL,
      title: 'Describe a tool',
      description:
        'The full definition of one tool, by the name search_tools gave it: title, description, input and output schemas, annotations.',
      inputSchema: {
        type: 'object',
        properties: { name: { type: 'string', description: 'The tool, as search_tools named it.' } },
        required: ['name'],
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
  ];
}

/**
 * Which of the three tools a tools/call of `name` is, if any. While they are listed, theirs are
 * the names; in `auto` they also answer while the full list is shown, unless a listed tool has
 * the name (a client that missed a list_changed keeps working, a listed tool stays callable).
 */
export function metaToolCalled(name: string, catalog: ToolCatalog): MetaToolName | undefined {
  if (catalog.mode === undefined || !META_TOOL_NAMES.has(name)) return undefined;
  if (catalog.progressive || !catalog.routes.has(name)) return name as MetaToolName;
  return undefined;
}

/** `search_tools`: the best matches as JSON text, or an error result in words. */
export function answerSearch(catalog: ToolCatalog, args: Record<string, unknown> | undefined): CallToolResult {
  const query = args?.query;
  const limit = args?.limit;
  if (typeof query !== 'string' || query.trim() === '') return failure('search_tools needs "query": what you want to do, in a few words.');
  if (limit !== undefined && (typeof limit !== 'number' || !Number.isFinite(limit))) {
    return failure(`search_tools: "limit" is a whole number from 1 to ${MAX_SEARCH_LIMIT}.`);
  }
  const found = searchTools(catalog.searchable, query, { limit });
  // The server first: a hit is read as whose it is before what it says (decision 314).
  const tools = found.map(({ server, name, description, inputSchema }) => (description === undefined ? { server, name, inputSchema } : { server, name, description, inputSchema }));
  const answer =
    tools.length > 0 ? { tools } : { tools, note: 'No tool matches these words. Try others: what the tool does, what it acts on, or its server.' };
  return { content: [{ type: 'text', text: JSON.stringify(answer) }] };
}

/** `describe_tool`: the tool as a full tools/list shows it, as JSON text; `notFound` words an unknown name. */
export function answerDescribe(catalog: ToolCatalog, args: Record<string, unknown> | undefined, notFound: (name: string) => string): CallToolResult {
  const name = args?.name;
  if (typeof name !== 'string' || name === '') return failure('describe_tool needs "name": a tool\'s name as search_tools gave it.');
  const tool = catalog.byName.get(name);
  if (tool === undefined) return failure(notFound(name));
  return { content: [{ type: 'text', text: JSON.stringify(tool) }] };
}

/** The tool and arguments of a `call_tool`, or what is wrong with them. */
export function callToolTarget(args: Record<string, unknown> | undefined): { name: string; arguments: Record<string, unknown> } | { error: string } {
  const name = args?.name;
  const given = args?.arguments;
  if (typeof name !== 'string' || name === '') return { error: 'call_tool needs "name": a tool\'s name as search_tools gave it' };
  if (given !== undefined && (typeof given !== 'object' || given === null || Array.isArray(given))) {
    return { error: 'call_tool: "arguments" is an object, as the tool\'s input schema describes' };
  }
  return { name, arguments: (given ?? {}) as Record<string, unknown> };
}

function failure(text: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }] };
}
