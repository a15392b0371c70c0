/**
 * Prefix kept (decision 358): how much of the gateway's tools/list a client's prompt cache can
 * still reuse after an edit. A model reads tools/list at the head of its prompt, and a provider's
 * prompt cache reuses only an exact prefix; so per edit: the share of the serialized tools/list
 * before the edit (UTF-8 bytes of `{"tools":[…]}`) that is still an exact prefix of the one after.
 *
 * - **Servers**: 10 stdio echo fixtures, each serving 30 tools of the synthetic catalog of
 *   bench/progressive.ts (real kinds of server: descriptions and JSON schemas of a realistic
 *   size) from a file (`--catalog`), behind an in-process gateway (createGateway over
 *   createMcpLive, the settings in a temp home), one client over an in-memory transport.
 * - **Edits**, one after another, each against the list just before it: a server added; one
 *   server edited (its args: one tool's description changed, one tool removed, one added); the
 *   same server edited again (one tool added, nothing else); that server's own list change (its
 *   file gains a tool, it sends tools/list_changed); that server removed. The added and the
 *   edited server are the middle ones by name, so that neither order wins by the luck of a name.
 * - **Beside it**, the order before decision 358 — the library's (servers by name, each
 *   server's tools in its own order, what a fresh gateway lists): the same tools the client got,
 *   put in that order, before and after each edit.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ToolListChangedNotificationSchema, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { firstValueFrom } from 'rxjs';
import { createGateway } from '../src/hosts/gateway/gateway.js';
import { createMcpLive } from '../src/live/createMcpLive.js';
import { gatewayView } from '../src/model/gateway/gatewayView.js';
import { FIXTURE, type RunDir, sleep, writeJson } from './fixtures.js';
import { syntheticCatalog } from './progressive.js';
import type { PrefixKeptResult } from './results.js';

export interface PrefixKeptOptions {
  run: RunDir;
  log: (line: string) => void;
}

/** How long one edit may take to show in the client's list. */
const EDIT_TIMEOUT_MS = 30_000;

/** The bytes of `before` that start `after` too, over the bytes of `before`, in %. */
export function prefixKeptShare(before: string, after: string): number {
  const [a, b] = [Buffer.from(before), Buffer.from(after)];
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return a.length === 0 ? 100 : (100 * i) / a.length;
}

/** tools/list's result as it goes out, serialized. */
const serialized = (tools: readonly Tool[]): string => JSON.stringify({ tools });

export async function runPrefixKept(o: PrefixKeptOptions): Promise<PrefixKeptResult> {
  const dir = o.run.folder('prefix-kept');
  const home = join(dir, 'home');
  const cwd = join(dir, 'work');
  const settings = join(home, '.qwen', 'settings.json');
  const startLog = join(dir, 'starts.log');
  mkdirSync(cwd, { recursive: true });

  // 11 kinds of server of the catalog, by name: the 6th is the one added, the 7th the one edited.
  const byServer = new Map<string, Tool[]>();
  for (const t of syntheticCatalog()) {
    const { tool, description, inputSchema } = t.tool;
    const list = byServer.get(t.server) ?? [];
    list.push({ name: tool, description, inputSchema: (inputSchema ?? { type: 'object' }) as Tool['inputSchema'] });
    byServer.set(t.server, list);
  }
  const names = [...byServer.keys()].slice(0, 11).sort();
  const added = names[5]!;
  const edited = names[6]!;
  const entry = (name: string, version = 'v1') => {
    const file = join(dir, `${name}.${version}.json`);
    return { command: process.execPath, args: [FIXTURE, '--catalog', file, '--start-log', startLog, '--log-name', name] };
  };
  const catalogOf = (name: string, version: string, tools: readonly Tool[]) => writeJson(join(dir, `${name}.${version}.json`), tools);
  for (const name of names) catalogOf(name, 'v1', byServer.get(name)!);
  const own = byServer.get(edited)!;
  const extra = (n: number): Tool => ({
    name: `export_records_${n}`,
    description: `Exports the records of ${edited} as a CSV file (batch ${n}).`,
    inputSchema: { type: 'object', properties: { since: { type: 'string', description: 'the first day to export, as YYYY-MM-DD' } } },
  });
  // v2: tool 10's description changed, tool 20 removed, one added (last in its own list); v3: one more; then its file gains another.
  const v2 = own.filter((_, i) => i !== 20).map((t, i) => (i === 10 ? { ...t, description: `${t.description} Now paginated.` } : t)).concat(extra(1));
  const v3 = [...v2, extra(2)];
  catalogOf(edited, 'v2', v2);
  catalogOf(edited, 'v3', v3);

  const configured = (servers: readonly string[], versions: Record<string, string> = {}) =>
    Object.fromEntries(servers.map((name) => [name, entry(name, versions[name])]));
  const initial = names.filter((n) => n !== added);
  writeJson(settings, { mcpServers: configured(initial) });

  const gateway = createGateway((hooks) => createMcpLive({ homeDir: home, cwd, runtimeDir: join(dir, 'run'), debounceMs: 100, ...hooks }));
  const client = new Client({ name: 'bench-prefix-kept', version: '1.0.0' });
  let changes = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    changes += 1;
  });
  try {
    await gateway.live.start();
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await gateway.connect(serverSide, 'stdio');
    await client.connect(clientSide);

      /** The client's list once it has `count` tools and `has` holds. */
    const listed = async (count: number, has: (tools: readonly Tool[]) => boolean = () => true): Promise<Tool[]> => {
      const until = Date.now() + EDIT_TIMEOUT_MS;
      for (;;) {
        const { tools } = await client.listTools();
        if (tools.length === count && has(tools)) return tools;
        if (Date.now() > until) {
          const states = gateway.live.servers.status().map((st) => `${st.name} ${st.state}${st.error ? ` (${st.error})` : ''}`);
          throw new Error(`prefix kept: the client's list has ${tools.length} tools, not ${count}; servers: ${states.join(', ')}`);
        }
        await sleep(20);
      }
    };
    /** The library's order (before decision 358) of the tools the client got. */
    const libraryOrder = async (tools: readonly Tool[]): Promise<Tool[]> => {
      const library = await firstValueFrom(gateway.live.tools.list$);
      const order = gatewayView({ tools: library, prompts: [], resources: [], resourceTemplates: [] }, 'server').tools.map((t) => t.name);
      const byName = new Map(tools.map((t) => [t.name, t]));
      if (order.length !== tools.length || order.some((n) => !byName.has(n))) throw new Error('prefix kept: the library lists other tools than the client got');
      return order.map((n) => byName.get(n)!);
    };

    let kept = await listed(300);
    let sorted = await libraryOrder(kept);
    if (serialized(kept) !== serialized(sorted)) throw new Error('prefix kept: a fresh gateway does not list in the library order');
    const edits: PrefixKeptResult['edits'] = [];
    const measure = async (edit: string, change: () => void, count: number) => {
      const before = { kept: serialized(kept), sorted: serialized(sorted), tools: kept.length };
      const notified = changes;
      change();
      kept = await listed(count, (tools) => changes > notified && serialized(tools) !== before.kept);
      sorted = await libraryOrder(kept);
      const after = { kept: serialized(kept), sorted: serialized(sorted) };
      edits.push({
        edit,
        toolsBefore: before.tools,
        toolsAfter: kept.length,
        bytesBefore: Buffer.byteLength(before.kept),
        keptOrderPercent: round1(prefixKeptShare(before.kept, after.kept)),
        sortedOrderPercent: round1(prefixKeptShare(before.sorted, after.sorted)),
      });
      o.log(`prefix kept, ${edit}: kept order ${edits.at(-1)!.keptOrderPercent} %, sorted by server ${edits.at(-1)!.sortedOrderPercent} %`);
    };

    await measure('a server added', () => writeJson(settings, { mcpServers: configured(names) }), 330);
    await measure(
      'one server edited: a description changed, a tool removed, one added',
      () => writeJson(settings, { mcpServers: configured(names, { [edited]: 'v2' }) }),
      330,
    );
    await measure('one server edited: a tool added', () => writeJson(settings, { mcpServers: configured(names, { [edited]: 'v3' }) }), 331);
    await measure("a server's own list change: a tool added", () => catalogOf(edited, 'v3', [...v3, extra(3)]), 332);
    await measure('a server removed', () => writeJson(settings, { mcpServers: configured(names.filter((n) => n !== edited)) }), 300);
    return { servers: initial.length, toolsPerServer: 30, added, edited, edits };
  } finally {
    await client.close().catch(() => undefined);
    await gateway.close();
    await gateway.live.dispose();
  }
}

function round1(n: number): number {
  return Math.round(n * 10) / 10;
}
