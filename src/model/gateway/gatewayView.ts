import equal from 'fast-deep-equal';
import type { Prompt, Resource, ResourceTemplateType, Tool } from '@modelcontextprotocol/server';
import type { ListedPrompt, QualifiedTool } from '../report/status.js';
import type { ResourceInfo, ResourceTemplateInfo } from '../types.js';
import { boundedToolName, qualifiedFromServerScoped, serverScopedToolName, TOOL_NAME_PATTERN } from '../tools/toolNames.js';
import { withoutUndefined } from '../withoutUndefined.js';

/**
 * What a gateway client sees of the live set: the four lists in MCP shape under the
 * names the gateway exposes, and the way back from an exposed name to what the library calls.
 */

/**
 * How the gateway names the tools and prompts it exposes (decision 222). `server` (the default):
 * `<server>__<tool>`, the library's qualified name without its `mcp__` — clients add their own
 * prefix (`mcp__mcp-live__`), so a second `mcp__` would only cost characters. `qualified`: the
 * library's unique names (`mcp__<server>__<tool>`). `original`: an item's own name where no other
 * listed item has it, else the qualified one — so a client written against one server (the
 * conformance suite's `test_simple_text`) finds its tools where it expects them.
 */
export type ExposedNames = 'server' | 'qualified' | 'original';

/** Every mode, the default first. */
export const EXPOSED_NAME_MODES: readonly ExposedNames[] = ['server', 'qualified', 'original'];

/** What the view is built from: the library's lists, each item with its server. */
export interface LiveLists {
  tools: readonly QualifiedTool[];
  prompts: readonly (ListedPrompt & { server: string })[];
  resources: readonly (ResourceInfo & { server: string })[];
  resourceTemplates: readonly (ResourceTemplateInfo & { server: string })[];
}

export interface GatewayView {
  readonly tools: readonly Tool[];
  readonly prompts: readonly Prompt[];
  readonly resources: readonly Resource[];
  readonly resourceTemplates: readonly ResourceTemplateType[];
  /** Exposed tool name → the qualified name `callTool` takes, and its server. */
  readonly toolRoutes: ReadonlyMap<string, { qualified: string; server: string }>;
  /** Exposed prompt name → its server and its own name there (what `prompts.get` takes). */
  readonly promptRoutes: ReadonlyMap<string, { server: string; prompt: string }>;
}

/** The lists whose change a client is told of, one `notifications/<kind>/list_changed` each. */
export type ListKind = 'tools' | 'prompts' | 'resources';

export const EMPTY_VIEW: GatewayView = {
  tools: [],
  prompts: [],
  resources: [],
  resourceTemplates: [],
  toolRoutes: new Map(),
  promptRoutes: new Map(),
};

/**
 * The name each item is exposed under, or undefined when it has none (a prompt of a server
 * without a unique part, whose own name another server also lists). Decision 223: every name
 * matches {@link TOOL_NAME_PATTERN} and no two are equal, whenever the qualified names are
 * unique and match it (as the library makes them).
 *
 * Each item wants one name by the mode ({@link wantedName}) and gets it when that name is valid,
 * no other item wants it, and it is no other item's qualified name; else it gets its qualified
 * name. Each test is about the set of items, never their order, so the result is a function of
 * the set: the same items give the same names whatever the order they are listed in, and a name
 * changes only when another item comes to want it (or to be qualified under it).
 */
export function exposedNames(
  items: readonly { own: string; qualified?: string }[],
  names: ExposedNames,
): (string | undefined)[] {
  const wanted = items.map((item) => wantedName(item, names));
  const wanting = new Map<string, number>();
  for (const name of wanted) if (name !== undefined) wanting.set(name, (wanting.get(name) ?? 0) + 1);
  const qualified = new Set(items.map((i) => i.qualified));
  return items.map((item, i) => {
    const name = wanted[i];
    const usable =
      name !== undefined && TOOL_NAME_PATTERN.test(name) && wanting.get(name) === 1 && (name === item.qualified || !qualified.has(name));
    return usable ? name : item.qualified;
  });
}

/**
 * The name an item wants under `names`: its qualified name; that name without `mcp__` (a
 * name without the prefix, such as the language servers' `lsp__hover`, stays as it is); or its
 * own name made valid by the library's rule ({@link boundedToolName}: replaced characters, a
 * hash suffix past 64).
 */
function wantedName(item: { own: string; qualified?: string }, names: ExposedNames): string | undefined {
  switch (names) {
    case 'qualified':
      return item.qualified;
    case 'server':
      return item.qualified === undefined ? undefined : (serverScopedToolName(item.qualified) ?? item.qualified);
    case 'original':
      return boundedToolName(item.own, item.own);
  }
}

/**
 * The library names a tools/call of `name` that no route knows may have meant, the likeliest
 * first: what the library is asked why the tool is not there (decision 224). Under `server`, the
 * qualified name it would have been cut from, or — for a language server tool's own name — the
 * name itself first.
 */
export function meantToolNames(name: string, names: ExposedNames, isOwnLibraryName: (name: string) => boolean): string[] {
  if (names !== 'server' || serverScopedToolName(name) !== undefined) return [name];
  const qualified = qualifiedFromServerScoped(name);
  return isOwnLibraryName(name) ? [name, qualified] : [qualified, name];
}

/**
 * The name this view lists the tool `called` names under another naming (decision 322): a
 * qualified `mcp__clock__now`, or `clock__now` (the `server` naming) where the view names tools
 * otherwise. Undefined when `called` is listed itself or names no listed tool that way.
 */
export function exposedNameOf(called: string, routes: GatewayView['toolRoutes']): string | undefined {
  if (routes.has(called)) return undefined;
  const meant = new Set([called, qualifiedFromServerScoped(called)]);
  for (const [exposed, route] of routes) if (meant.has(route.qualified)) return exposed;
  return undefined;
}

/**
 * The library's words about `meant`, about `name` (what the client called) instead: the words
 * begin with the quoted tool name (`Tool "mcp__a__x" is not available: …`, quoted as the library
 * quotes it), and a client that called `a__x` should read its own name there. Any other words
 * are left as they are.
 */
export function inCallersWords(words: string, meant: string, name: string): string {
  const head = `Tool "${meant}"`;
  return meant !== name && words.startsWith(head) ? `Tool "${name}"${words.slice(head.length)}` : words;
}

/** The view of `lists` under `names`: tools and prompts renamed, resources and templates as listed. */
export function gatewayView(lists: LiveLists, names: ExposedNames): GatewayView {
  const toolNames = exposedNames(lists.tools.map((t) => ({ own: t.tool, qualified: t.name })), names);
  const promptNames = exposedNames(lists.prompts.map((p) => ({ own: p.name, qualified: p.qualifiedName })), names);
  const toolRoutes = new Map<string, { qualified: string; server: string }>();
  const tools: Tool[] = [];
  lists.tools.forEach((t, i) => {
    const name = toolNames[i]!;
    toolRoutes.set(name, { qualified: t.name, server: t.server });
    tools.push(exposedTool(t, name));
  });
  const promptRoutes = new Map<string, { server: string; prompt: string }>();
  const prompts: Prompt[] = [];
  lists.prompts.forEach((p, i) => {
    const name = promptNames[i];
    if (name === undefined) return;
    promptRoutes.set(name, { server: p.server, prompt: p.name });
    prompts.push(withoutUndefined({ name, title: p.title, description: p.description, arguments: p.arguments, icons: p.icons, _meta: p._meta }) as Prompt);
  });
  return {
    tools,
    prompts,
    resources: lists.resources.map(exposedResource),
    resourceTemplates: lists.resourceTemplates.map(exposedTemplate),
    toolRoutes,
    promptRoutes,
  };
}

/** The lists that differ between two views, by content (names, schemas, descriptions …). */
export function changedLists(before: GatewayView, after: GatewayView): ListKind[] {
  const changed: ListKind[] = [];
  if (!equal(before.tools, after.tools)) changed.push('tools');
  if (!equal(before.prompts, after.prompts)) changed.push('prompts');
  if (!equal(before.resources, after.resources) || !equal(before.resourceTemplates, after.resourceTemplates)) changed.push('resources');
  return changed;
}

function exposedTool(t: QualifiedTool, name: string): Tool {
  const { title, description, outputSchema, annotations, execution, icons, _meta } = t;
  // A tool without a schema takes no arguments; MCP requires one.
  const inputSchema = t.inputSchema ?? { type: 'object' };
  return withoutUndefined({ name, title, description, inputSchema, outputSchema, annotations, execution, icons, _meta }) as Tool;
}

/** MCP requires a name; a server that gave none is named by its URI. */
function exposedResource(r: ResourceInfo): Resource {
  const { uri, title, description, mimeType, size, annotations, icons, _meta } = r;
  return withoutUndefined({ uri, name: r.name ?? uri, title, description, mimeType, size, annotations, icons, _meta }) as Resource;
}

function exposedTemplate(t: ResourceTemplateInfo): ResourceTemplateType {
  const { uriTemplate, title, description, mimeType, annotations, icons, _meta } = t;
  return withoutUndefined({ uriTemplate, name: t.name ?? uriTemplate, title, description, mimeType, annotations, icons, _meta }) as ResourceTemplateType;
}
