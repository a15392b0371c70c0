import equal from 'fast-deep-equal';
import type { Prompt, Resource, ResourceTemplate, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ListedPrompt, QualifiedTool } from './status.js';
import type { ResourceInfo, ResourceTemplateInfo } from './types.js';
import { withoutUndefined } from './withoutUndefined.js';

/**
 * What a gateway client (issue 16) sees of the live set: the four lists in MCP shape under the
 * names the gateway exposes, and the way back from an exposed name to what the library calls.
 */

/**
 * `qualified`: the library's unique names (`mcp__<server>__<tool>`). `original`: an item's own
 * name where no other listed item has it, else the qualified one — so a client written against
 * one server (the conformance suite's `test_simple_text`) finds its tools where it expects them.
 */
export type ExposedNames = 'qualified' | 'original';

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
  readonly resourceTemplates: readonly ResourceTemplate[];
  /** Exposed tool name → the qualified name `callTool` takes, and its server. */
  readonly toolRoutes: ReadonlyMap<string, { qualified: string; server: string }>;
  /** Exposed prompt name → its server and its own name there (what `getPrompt` takes). */
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
 * without a unique part, whose own name another server also lists). Exposed names are unique:
 * qualified names are; an own name is used only when no other item has it as its own name or
 * its qualified name.
 */
export function exposedNames(
  items: readonly { own: string; qualified?: string }[],
  names: ExposedNames,
): (string | undefined)[] {
  if (names === 'qualified') return items.map((i) => i.qualified);
  const owners = new Map<string, number>();
  for (const { own } of items) owners.set(own, (owners.get(own) ?? 0) + 1);
  const qualified = new Set(items.map((i) => i.qualified));
  return items.map((i) => (owners.get(i.own) === 1 && (i.qualified === i.own || !qualified.has(i.own)) ? i.own : i.qualified));
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

function exposedTemplate(t: ResourceTemplateInfo): ResourceTemplate {
  const { uriTemplate, title, description, mimeType, annotations, icons, _meta } = t;
  return withoutUndefined({ uriTemplate, name: t.name ?? uriTemplate, title, description, mimeType, annotations, icons, _meta }) as ResourceTemplate;
}
