import { ProtocolError } from '@modelcontextprotocol/client';
import type { Client, Prompt, Resource, ResourceTemplateType, Tool } from '@modelcontextprotocol/client';
import { withoutUndefined } from '../../model/withoutUndefined.js';
import type { PromptInfo, ResourceInfo, ResourceTemplateInfo, ServerLists, ToolInfo } from '../../model/types.js';

/** One of a server's lists. */
export type ListKind = keyof ServerLists;

/** Guards against a server that hands out cursors forever (the SDK's own walk is capped alike). */
export const MAX_LIST_PAGES = 100;

/**
 * How long the server said a list stays fresh (`ttlMs`, 2026-07-28), or undefined when it said
 * nothing (or 0: stale at once, which asks for no refresh either — decision 381).
 */
export type ListTtl = (kind: ListKind, ttlMs: number | undefined) => void;

/** The lists the server advertises; a list the server answers with an error counts as empty. */
export async function fetchLists(client: Client, timeoutMs: number, ttl?: ListTtl): Promise<ServerLists> {
  const capabilities = client.getServerCapabilities() ?? {};
  const fetch = (kind: ListKind, advertised: unknown) =>
    advertised ? listAll(client, kind, timeoutMs, ttl).catch(emptyOnServerError) : Promise.resolve([]);
  const [tools, prompts, resources, resourceTemplates] = await Promise.all([
    fetch('tools', capabilities.tools),
    fetch('prompts', capabilities.prompts),
    fetch('resources', capabilities.resources),
    fetch('resourceTemplates', capabilities.resources),
  ]);
  return { tools, prompts, resources, resourceTemplates } as ServerLists;
}

/**
 * Every page of one list (up to {@link MAX_LIST_PAGES}), each request within `timeoutMs`. Always
 * from the server, never from the SDK's response cache: a list is asked for only when it may have
 * changed (connect, a change notification, its `ttlMs` run out), and then the server's answer is
 * the one wanted (the cache is still written, for the SDK's own use of the tools' schemas).
 */
export function listAll(client: Client, kind: 'tools', timeoutMs: number, ttl?: ListTtl): Promise<ToolInfo[]>;
export function listAll(client: Client, kind: ListKind, timeoutMs: number, ttl?: ListTtl): Promise<ToolInfo[] | PromptInfo[] | ResourceInfo[] | ResourceTemplateInfo[]>;
export async function listAll(client: Client, kind: ListKind, timeoutMs: number, ttl?: ListTtl): Promise<ToolInfo[] | PromptInfo[] | ResourceInfo[] | ResourceTemplateInfo[]> {
  const options = { timeout: timeoutMs, cacheMode: 'refresh' as const };
  const pages = async <T>(page: (cursor?: string) => Promise<{ items: T[]; nextCursor?: string; ttlMs?: unknown }>) => {
    const items: T[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    for (let i = 0; i < MAX_LIST_PAGES; i++) {
      const result = await page(cursor);
      // The first page's hint is the list's (the SDK keeps it on the pages it joins).
      if (i === 0) ttl?.(kind, typeof result.ttlMs === 'number' && Number.isFinite(result.ttlMs) && result.ttlMs > 0 ? result.ttlMs : undefined);
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
        return { items: r.tools.map(toToolInfo), nextCursor: r.nextCursor, ttlMs: (r as { ttlMs?: unknown }).ttlMs };
      });
    case 'prompts':
      return pages(async (cursor) => {
        const r = await client.listPrompts(cursor ? { cursor } : undefined, options);
        return { items: r.prompts.map(toPromptInfo), nextCursor: r.nextCursor, ttlMs: (r as { ttlMs?: unknown }).ttlMs };
      });
    case 'resources':
      return pages(async (cursor) => {
        const r = await client.listResources(cursor ? { cursor } : undefined, options);
        return { items: r.resources.map(toResourceInfo), nextCursor: r.nextCursor, ttlMs: (r as { ttlMs?: unknown }).ttlMs };
      });
    case 'resourceTemplates':
      return pages(async (cursor) => {
        const r = await client.listResourceTemplates(cursor ? { cursor } : undefined, options);
        return { items: r.resourceTemplates.map(toResourceTemplateInfo), nextCursor: r.nextCursor, ttlMs: (r as { ttlMs?: unknown }).ttlMs };
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
