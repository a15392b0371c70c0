import { UriTemplate } from '@modelcontextprotocol/server';
import type { CompleteRequestParams, CompleteResult } from '@modelcontextprotocol/server';
import { NeedsAuthorization, type CallToolOptions, type Connection, type RequestOptions } from '../../model/connection.js';
import type { ServerStatus } from '../../model/report/status.js';
import { parseQualifiedToolName } from '../../model/tools/toolNames.js';
import { ambiguousToolMessage, gatewayNamingMessage, libraryNameOf, renamedToolMessage } from '../../model/tools/toolNameMessages.js';
import { needsAuthText, toolNotFoundMessage, withheldPromptMessage, type HintAudience } from '../../model/report/messages.js';
import { untilAborted } from '../../model/untilAborted.js';
import type { Entries, Entry, InFlight } from './liveEntries.js';
import type { ToolCatalog } from './toolCatalog.js';

/** Dependencies of {@link RequestRouter}. */
export interface RequestRouterDeps {
  entries: Entries;
  /** The names a request is routed by, and what is withheld. */
  catalog: Pick<ToolCatalog, 'findServerForQualified' | 'renamedFrom' | 'filteredOut' | 'withholdingPrompt'>;
  /** Where each request is counted while in flight (a replaced connection waits for its own). */
  inFlight: InFlight;
  /** Who reads the fix hints of tool-not-found messages (default `library`). */
  hints?: HintAudience;
}

/**
 * Sends a request to the server it belongs to: a tool call by its qualified name, a prompt, a
 * resource or a completion by what the servers list — exactly, never by guess — on the server's
 * current connection, counted as in flight there.
 */
export class RequestRouter {
  constructor(private readonly deps: RequestRouterDeps) {}

  /**
   * Runs `request` on `name`'s current connection, counted as in flight (a replaced connection
   * closes when its own requests have ended, like a tool call's). Undefined when it is not connected.
   */
  withConnection<T>(name: string, request: (conn: Connection) => Promise<T>): Promise<T> | undefined {
    const e = this.deps.entries.get(name);
    if (e?.conn === undefined || (e.status.state !== 'connected' && e.status.state !== 'idle')) return undefined;
    return this.worded(e, e.conn, request(e.conn));
  }

  /** `name`'s current connection while it is connected (a language server's, for its routing and capabilities). */
  connection(name: string): Connection | undefined {
    const e = this.deps.entries.get(name);
    return e?.status.state === 'connected' ? e.conn : undefined;
  }

  /**
   * Routes a call by qualified tool name, exactly: an unknown or stale name rejects with the reason
   * and the fix, and a name more than one server lists is refused, never routed by guess. An
   * aborted `signal` rejects at once with its reason (and the server is told, where the connection
   * can), whatever the server does with the request.
   */
  async callTool(qualified: string, args: Record<string, unknown>, options: CallToolOptions = {}): Promise<unknown> {
    options.signal?.throwIfAborted();
    const owners = [...this.deps.entries.values()].filter((e) => e.status.tools.some((t) => t.name === qualified));
    if (owners.length > 1) throw new Error(ambiguousToolMessage(qualified, owners.map((e) => e.status.name)));
    const e = owners[0];
    const tool = e?.status.tools.find((t) => t.name === qualified);
    // A lazy server compares the surface its process shows before the call is sent (decision 311).
    const admit = (): void => {
      if (e?.withheld?.tools.has(tool!.tool)) throw new Error(this.toolNotFoundMessage(qualified));
    };
    if (tool && e?.conn) return untilAborted(this.worded(e, e.conn, e.conn.callTool(tool.tool, args, { ...options, admit })), options.signal);
    throw new Error(this.toolNotFoundMessage(qualified));
  }

  /**
   * Gets a prompt by its name as the servers list it. `server` picks the server; without it, the
   * one connected server that lists the prompt — a name more than one lists is refused, never
   * routed by guess.
   */
  async getPrompt(prompt: string, args: Record<string, string>, options: RequestOptions & { server?: string } = {}): Promise<unknown> {
    options.signal?.throwIfAborted();
    const withholding = this.deps.catalog.withholdingPrompt(prompt, options.server);
    if (withholding !== undefined) throw new Error(withheldPromptMessage(prompt, withholding.status.name, this.deps.hints, withholding.withheld?.reason));
    const e = this.routeTo(options.server, `prompt "${prompt}"`, (s) => s.prompts.some((p) => p.name === prompt));
    if (!e.conn?.getPrompt) throw new Error(`server "${e.status.name}" cannot give prompts`);
    const admit = (): void => {
      if (e.withheld?.prompts.has(prompt)) throw new Error(withheldPromptMessage(prompt, e.status.name, this.deps.hints, e.withheld.reason));
    };
    return untilAborted(this.worded(e, e.conn, e.conn.getPrompt(prompt, args, { ...options, admit })), options.signal);
  }

  /**
   * Reads a resource from the connected server that lists its URI, else from the one whose
   * resource template matches it; `server` picks the server (which may serve URIs it does not
   * list). A URI more than one server lists or matches is refused.
   */
  async readResource(uri: string, options: RequestOptions & { server?: string } = {}): Promise<unknown> {
    options.signal?.throwIfAborted();
    const e = this.resourceOwner(uri, options.server);
    if (!e.conn?.readResource) throw new Error(`server "${e.status.name}" cannot read resources`);
    return untilAborted(this.worded(e, e.conn, e.conn.readResource(uri, options)), options.signal);
  }

  /**
   * Subscribes to a resource's updates (`resources/subscribe`) at the server that lists its URI,
   * else the one whose template matches it (routed like {@link readResource}).
   */
  async subscribeResource(uri: string, options: RequestOptions & { server?: string } = {}): Promise<void> {
    const e = this.resourceOwner(uri, options.server);
    if (!e.conn?.subscribeResource) throw new Error(`server "${e.status.name}" cannot subscribe to resources`);
    await untilAborted(this.worded(e, e.conn, e.conn.subscribeResource(uri, options)), options.signal);
  }

  async unsubscribeResource(uri: string, options: RequestOptions & { server?: string } = {}): Promise<void> {
    const e = this.resourceOwner(uri, options.server);
    if (!e.conn?.unsubscribeResource) throw new Error(`server "${e.status.name}" cannot subscribe to resources`);
    await untilAborted(this.worded(e, e.conn, e.conn.unsubscribeResource(uri, options)), options.signal);
  }

  /**
   * Completions (`completion/complete`) from the server a reference belongs to: a prompt's, by
   * its own name as listed; a resource template's, by its URI template (or a listed URI).
   */
  async complete(params: CompleteRequestParams, options: RequestOptions & { server?: string } = {}): Promise<CompleteResult> {
    options.signal?.throwIfAborted();
    const { ref } = params;
    const e =
      ref.type === 'ref/prompt'
        ? this.routeTo(options.server, `prompt "${ref.name}"`, (s) => s.prompts.some((p) => p.name === ref.name))
        : this.templateOwner(ref.uri, options.server);
    if (!e.conn?.complete) throw new Error(`server "${e.status.name}" cannot complete arguments`);
    return untilAborted(this.worded(e, e.conn, e.conn.complete(params, options)), options.signal);
  }

  /**
   * The server a request about `uri` goes to, as {@link readResource} (`read`) or {@link complete}
   * with a resource reference (`complete`) routes it; undefined when none or more than one would.
   */
  serverOfResource(uri: string, request: 'read' | 'complete' = 'read'): string | undefined {
    try {
      return (request === 'read' ? this.resourceOwner(uri, undefined) : this.templateOwner(uri, undefined)).status.name;
    } catch {
      return undefined;
    }
  }

  /**
   * The configured server a qualified tool name points at, listed or not (its server part says
   * which): what a caller asks the status of when the tool is not there.
   */
  serverOfTool(qualified: string): string | undefined {
    const parsed = parseQualifiedToolName(qualified);
    return parsed === undefined ? undefined : this.deps.catalog.findServerForQualified(parsed.server);
  }

  toolNotFoundMessage(qualified: string): string {
    const { entries, catalog } = this.deps;
    const parsed = parseQualifiedToolName(qualified);
    // The gateway's name of a listed tool (`clock__now`): the name to call it by here (decision 322).
    const libraryName = parsed === undefined ? libraryNameOf(qualified, [...entries.values()].flatMap((e) => e.status.tools)) : undefined;
    if (libraryName !== undefined) return gatewayNamingMessage(qualified, libraryName);
    const server = parsed ? catalog.findServerForQualified(parsed.server) : undefined;
    if (parsed && server === undefined) {
      // A name from before a suffix: point at the servers' current names instead of "no such server".
      const renamed = catalog.renamedFrom(parsed.server);
      if (renamed.length > 0) return renamedToolMessage(qualified, renamed);
    }
    const e = server === undefined ? undefined : entries.get(server);
    return toolNotFoundMessage(qualified, server ?? parsed?.server, e?.status, {
      audience: this.deps.hints,
      filteredOut: server === undefined || e === undefined ? undefined : catalog.filteredOut(server, e, qualified),
      withheldBecause: e?.withheld?.reason,
    });
  }

  /** A request's failure for want of authorization, with the server's name and the way to authorize. */
  private async worded<T>(e: Entry, conn: Connection, request: Promise<T>): Promise<T> {
    const done = this.deps.inFlight.begin(conn);
    try {
      return await request;
    } catch (error) {
      if (!(error instanceof NeedsAuthorization)) throw error;
      throw new Error(`MCP server "${e.status.name}" ${needsAuthText(e.status.name, error, this.deps.hints ?? 'library')}`, { cause: error });
    } finally {
      done();
    }
  }

  /** The server a completion of resource template `uri` goes to: `server`, else the one that lists that template (or that URI). */
  private templateOwner(uri: string, server: string | undefined): Entry {
    return this.routeTo(
      server,
      `resource template "${uri}"`,
      (s) => (s.resourceTemplates ?? []).some((t) => t.uriTemplate === uri) || s.resources.some((r) => r.uri === uri),
    );
  }

  /** The server a request about `uri` goes to: `server`, else the one that lists it, else the one whose template matches it. */
  private resourceOwner(uri: string, server: string | undefined): Entry {
    const listed = (s: ServerStatus) => s.resources.some((r) => r.uri === uri);
    const matched = (s: ServerStatus) => (s.resourceTemplates ?? []).some((t) => matchesTemplate(t.uriTemplate, uri));
    const what = `resource "${uri}"`;
    return server !== undefined || this.connected().some(listed)
      ? this.routeTo(server, what, listed, server !== undefined)
      : this.routeTo(undefined, what, matched);
  }

  private connected(): ServerStatus[] {
    return [...this.deps.entries.values()].filter((e) => e.conn !== undefined).map((e) => e.status);
  }

  /**
   * The connected server a request goes to: `server` when given (`anyItem`: whether or not it
   * lists the item), else the one server that `has` the item.
   */
  private routeTo(server: string | undefined, what: string, has: (s: ServerStatus) => boolean, anyItem = false): Entry {
    if (server !== undefined) {
      const e = this.deps.entries.get(server);
      if (!e?.conn) throw new Error(`server "${server}" is not connected${e ? ` (${e.status.state})` : ''}`);
      if (!anyItem && !has(e.status)) throw new Error(`server "${server}" lists no ${what}`);
      return e;
    }
    const owners = [...this.deps.entries.values()].filter((e) => e.conn !== undefined && has(e.status));
    if (owners.length === 1) return owners[0]!;
    if (owners.length === 0) throw new Error(`no connected server lists ${what}`);
    const names = owners.map((e) => e.status.name).join(', ');
    throw new Error(`${what} is listed by more than one server (${names}): name the server`);
  }
}

/** Whether `uri` is one of the URIs an RFC 6570 template describes (a malformed template matches none). */
function matchesTemplate(template: string, uri: string): boolean {
  try {
    return new UriTemplate(template).match(uri) !== null;
  } catch {
    return false;
  }
}
