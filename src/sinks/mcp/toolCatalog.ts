import type { Connection, ServerIdentity } from '../../model/connection.js';
import type { WantedServer } from '../../model/reconcile/plan.js';
import type { ToolFilter } from '../../model/report/messages.js';
import type { ServerStatus } from '../../model/report/status.js';
import type { ServerLists } from '../../model/types.js';
import { filterTools, qualifyTools, resolveServerParts, sanitisesTo, serverNameParts } from '../../model/tools/toolNames.js';
import { collisionWarning } from '../../model/tools/toolNameMessages.js';
import { withholdsAnything } from '../../model/tools/surfacePin.js';
import { serverKind } from '../../model/serverKeys.js';
import { EMPTY_LISTS, trustOf, type Entries, type Entry, type ListKey } from './liveEntries.js';
import { offeredInstructions } from './offeredSurface.js';
import type { StatusBoard } from './statusBoard.js';
import type { SurfaceWithheld } from './surfacePins.js';

/** What the live servers tell the surface record, and ask it. */
export interface SurfaceObserver {
  /** Records what `server` lists now; returns what to withhold of it (own names). */
  observe(server: WantedServer, lists: ServerLists, identity: ServerIdentity | undefined): SurfaceWithheld;
  /** Settles the server's pin before its connection is published (decision 308); undefined when nothing to wait for. */
  prepare?(server: WantedServer, lists: ServerLists, identity: ServerIdentity | undefined): Promise<void> | undefined;
  /** `name` shows no surface any more (disconnected, blocked, failed). */
  forget(name: string): void;
}

/** Dependencies of {@link ToolCatalog}. */
export interface ToolCatalogDeps {
  entries: Entries;
  /** Publishes a server's lists when their names change. */
  board: Pick<StatusBoard, 'update'>;
  /**
   * The surface record (decisions 195, 197): told every surface a connected MCP server shows,
   * it answers with the tools to withhold (changed since the user approved them).
   */
  surfaces?: SurfaceObserver;
}

/**
 * What each server offers, and by which names: the server part of qualified tool names over
 * every configured name (decision 57), the view's tool filters, and what the surface record
 * withholds until the user approves it (decisions 197, 311).
 */
export class ToolCatalog {
  /** Every configured name (see {@link setConfiguredNames}). */
  private configured = new Set<string>();
  /** Server → the server part of its qualified tool names; a configured name missing here has none. */
  private parts = new Map<string, string>();
  /** Collisions warned about, so each is reported once while it lasts. */
  private collisions = new Set<string>();

  constructor(private readonly deps: ToolCatalogDeps) {}

  /**
   * Every configured server's name, blocked and pending ones included (decision 57): qualified
   * tool names are unique across all of them, so approving or unblocking a server never renames
   * another's tools. A server whose part changed re-publishes its tools under the new names; one
   * no longer configured keeps its part while it still has tools (its disconnect is coming).
   * Returns a warning for each collision that is new since the last call.
   */
  setConfiguredNames(names: Iterable<string>): string[] {
    const configured = new Set(names);
    const { parts, collisions } = resolveServerParts(configured);
    for (const [name, part] of this.parts) {
      if (!configured.has(name) && this.deps.entries.get(name)?.lists !== undefined) parts.set(name, part);
    }
    const before = this.parts;
    this.configured = configured;
    this.parts = parts;
    for (const [name, e] of this.deps.entries) {
      if (e.lists !== undefined && before.get(name) !== parts.get(name)) this.deps.board.update(name, this.listsPatch(name, e));
    }
    const seen = this.collisions;
    this.collisions = new Set(collisions.map((group) => group.join('\0')));
    return collisions.filter((group) => !seen.has(group.join('\0'))).map((group) => collisionWarning(group, parts));
  }

  /** A server's lists as its status shows them: qualified, filtered by its view, without what is withheld. */
  listsPatch(name: string, e: Entry): Pick<ServerStatus, ListKey | 'withheld'> {
    if (!e.lists) return { ...EMPTY_LISTS, resourceTemplates: undefined, withheld: undefined };
    const view = e.server?.view ?? {};
    const part = this.partOf(name);
    const withheld = e.withheld;
    const offered = withheld === undefined ? e.lists.tools : e.lists.tools.filter((t) => !withheld.tools.has(t.name));
    const tools = part === undefined ? [] : filterTools(offered, view);
    const names = qualifyTools(name, tools.map((t) => t.name), part);
    const trust = trustOf(e.server);
    const prompts = withheld === undefined ? e.lists.prompts : e.lists.prompts.filter((p) => !withheld.prompts.has(p.name));
    const promptNames = part === undefined ? [] : qualifyTools(name, prompts.map((p) => p.name), part);
    return {
      tools: tools.map((t, i) => ({ ...t, name: names[i]!, server: name, tool: t.name, trust })),
      prompts: part === undefined ? prompts : prompts.map((p, i) => ({ ...p, qualifiedName: promptNames[i]! })),
      resources: e.lists.resources,
      resourceTemplates: e.lists.resourceTemplates?.length ? e.lists.resourceTemplates : undefined,
      withheld: withheld === undefined || withheld.tools.size === 0 ? undefined : [...withheld.tools].sort(),
    };
  }

  /**
   * The server part of a server's tool names: from {@link setConfiguredNames}; a configured name
   * without one (no unique part) has none, so its tools are withheld; a name never configured
   * (the live servers used on their own) has the part it would have alone.
   */
  partOf(name: string): string | undefined {
    return this.parts.get(name) ?? (this.configured.has(name) ? undefined : serverNameParts([name]).get(name));
  }

  /** The server whose qualified names have this server part (parts are unique), if any. */
  findServerForQualified(part: string): string | undefined {
    for (const [name, p] of this.parts) if (p === part) return name;
    for (const name of this.deps.entries.keys()) if (!this.parts.has(name) && this.partOf(name) === part) return name;
    return undefined;
  }

  /** Servers whose names sanitise to `part` but whose tools are now named by another part (a suffix came), with that part. */
  renamedFrom(part: string): [string, string][] {
    return [...this.parts].filter(([name, p]) => p !== part && sanitisesTo(name, part));
  }

  /**
   * The tool `qualified` would name if the server's view fields let it through, and the field
   * that hides it: the server offers it (its unfiltered list has it) but the view removes it.
   */
  filteredOut(name: string, e: Entry, qualified: string): { tool: string; by: ToolFilter } | undefined {
    const part = this.partOf(name);
    if (e.lists === undefined || part === undefined) return undefined;
    const offered = e.lists.tools;
    const tool = offered[qualifyTools(name, offered.map((t) => t.name), part).indexOf(qualified)];
    if (tool === undefined) return undefined;
    if (e.withheld?.tools.has(tool.name)) return { tool: tool.name, by: 'withheld' };
    const view = e.server?.view ?? {};
    // Through filterTools itself, one field at a time, so the answer matches what the list shows.
    if (filterTools([tool], { excludeTools: view.excludeTools }).length === 0) return { tool: tool.name, by: 'excludeTools' };
    if (filterTools([tool], { includeTools: view.includeTools }).length === 0) return { tool: tool.name, by: 'includeTools' };
    return undefined;
  }

  /**
   * The server that withholds prompt `prompt` (decision 311): by its own name, or by the name a
   * gateway would have given it (qualified, or without `mcp__`), since a gateway asks the library
   * for a name it no longer lists.
   */
  withholdingPrompt(prompt: string, server: string | undefined): Entry | undefined {
    for (const e of this.deps.entries.values()) {
      const withheld = e.withheld?.prompts;
      if (!withheld?.size || !e.lists || (server !== undefined && server !== e.status.name)) continue;
      if (withheld.has(prompt)) return e;
      const part = this.partOf(e.status.name);
      const names = e.lists.prompts.map((p) => p.name);
      const qualified = part === undefined ? [] : qualifyTools(e.status.name, names, part);
      if (qualified.some((q, i) => withheld.has(names[i]!) && (q === prompt || q.replace(/^mcp__/, '') === prompt))) return e;
    }
    return undefined;
  }

  /** Tells the surface record what a connected MCP server lists now, and keeps what it withholds. */
  observeSurface(e: Entry, server: WantedServer, conn: Connection): void {
    if (!this.deps.surfaces || !e.lists || serverKind(server.name) === 'lsp') return;
    const withheld = this.deps.surfaces.observe(server, e.lists, conn.server);
    e.withheld = withholdsAnything(withheld) ? withheld : undefined;
  }

  /** What to wait for before a connection's first surface is published (decision 308); undefined when nothing. */
  prepareSurface(server: WantedServer, conn: Connection): Promise<void> | undefined {
    return serverKind(server.name) === 'lsp' ? undefined : this.deps.surfaces?.prepare?.(server, conn.lists, conn.server);
  }

  /** `name` shows no surface any more (disconnected, blocked, failed). */
  forgetSurface(name: string): void {
    this.deps.surfaces?.forget(name);
  }

  /**
   * Asks the surface record again what to withhold of `name`'s lists (after the user approved
   * its new surface): the tools it lets through are published at once.
   */
  reobserve(name: string): void {
    const e = this.deps.entries.get(name);
    if (!e?.lists || !e.server || !e.conn) return;
    this.observeSurface(e, e.server, e.conn);
    this.deps.board.update(name, { ...this.listsPatch(name, e), instructions: offeredInstructions(e.conn.server, e.withheld) });
  }
}
