import { ProtocolError } from '@modelcontextprotocol/client';
import type { Client, Prompt, Resource, ResourceTemplateType, Tool } from '@modelcontextprotocol/client';
import { withoutUndefined } from '../../model/withoutUndefined.js';
import type { PromptInfo, ResourceInfo, ResourceTemplateInfo, ServerLists, ToolInfo } from '../../model/types.js';

/** One of a server's lists. */
export type ListKind = keyof ServerLists;

/** Guards against a server that hands out cursors forever. */
const MAX_LIST_PAGES = 100;

/** The lists the server advertises; a list the server answers with an error counts as empty. */
export async function fetchLists(client: Client, timeoutMs: number): Promise<ServerLists> {
  const capabilities = client.getServerCapabilities() ?? {};
  const fetch = (kind: ListKind, advertised: unknown) =>
    advertised ? listAll(client, kind, timeoutMs).catch(emptyOnServerError) : Promise.resolve([]);
  const [tools, prompts, resources, resourceTemplates] = await Promise.all([
    fetch('tools', capabilities.tools),
    fetch('prompts', capabilities.prompts),
    fetch('resources', capabilities.resources),
    fetch('resourceTemplates', capabilities.resources),
  ]);
  return { tools, prompts, resources, resourceTemplates } as ServerLists;
}

/** Every page of one list (up to {@link MAX_LIST_PAGES}), each request within `timeoutMs`. */
export function listAll(client: Client, kind: 'tools', timeoutMs: number): Promise<ToolInfo[]>;
export function listAll(client: Client, kind: ListKind, timeoutMs: number): Promise<ToolInfo[] | PromptInfo[] | ResourceInfo[] | ResourceTemplateInfo[]>;
export async function listAll(client: Client, kind: ListKind, timeoutMs: number): Promise<ToolInfo[] | PromptInfo[] | ResourceInfo[] | ResourceTemplateInfo[]> {
  const options = { timeout: timeoutMs };
  const pages = async <T>(page: (cursor?: string) => Promise<{ items: T[]; nextCursor?: string }>) => {
    const items: T[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    for (let i = 0; i < MAX_LIST_PAGES; i++) {
      const result = await page(cursor);
      items.push(...result.items);
      cursor = result.nextCursor;
      if (!cursor || seen.has(cursor)) break;
      seen.add(cursor);
    }
    return items;
  };
  switch (kind) {
    case 'tools':
      return pages(async (cursor) => {
        const r = await client.listTools(cursor ? { cursor } : undefined, options);
        return { items: r.tools.map(toToolInfo), nextCursor: r.nextCursor };
      });
    case 'prompts':
      return pages(async (cursor) => {
        const r = await client.listPrompts(cursor ? { cursor } : undefined, options);
        return { items: r.prompts.map(toPromptInfo), nextCursor: r.nextCursor };
      });
    case 'resources':
      return pages(async (cursor) => {
        const r = await client.listResources(cursor ? { cursor } : undefined, options);
        return { items: r.resources.map(toResourceInfo), nextCursor: r.nextCursor };
      });
    case 'resourceTemplates':
      return pages(async (cursor) => {
        const r = await client.listResourceTemplates(cursor ? { cursor } : undefined, options);
        return { items: r.resourceTemplates.map(toResourceTemplateInfo), nextCursor: r.nextCursor };
      });
  }
}

/**
 * A server that advertises a list and then answers a `…/list` request with a JSON-RPC error still works
 * for everything else, so that list counts as empty. A timeout or a lost connection is not the
 * server's answer: it fails the connect.
 */
function emptyOnServerError(error: unknown): [] {
  if (
    error instanceof ProtocolError
  ) {
    return [];
  }
  throw error;
}

function toToolInfo(tool: Tool): ToolInfo {
  const { name, title, description, inputSchema, outputSchema, annotations, execution, icons, _meta } = tool;
  return withoutUndefined({ name, title, description, inputSchema, outputSchema, annotations, execution, icons, _meta });
}

function toPromptInfo(prompt: Prompt): PromptInfo {
  const { name, title, description, arguments: args, icons, _meta } = prompt;
  return withoutUndefined({ name, title, description, arguments: args, icons, _meta });
}

function toResourceInfo(resource: Resource): ResourceInfo {
  const { uri, name, title, description, mimeType, size, annotations, icons, _meta } = resource;
  return withoutUndefined({ uri, name, title, description, mimeType, size, annotations, icons, _meta });
}

function toResourceTemplateInfo(template: ResourceTemplateType): ResourceTemplateInfo {
  const { uriTemplate, name, title, description, mimeType, annotations, icons, _meta } = template;
  return withoutUndefined({ uriTemplate, name, title, description, mimeType, annotations, icons, _meta });
}
