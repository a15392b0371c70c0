import type { McpLive } from '../../createMcpLive.js';
import type { QualifiedTool, ServerStatus } from '../../model/status.js';
import { statusText } from './serverSummary.js';

/** A command of the interactive session (SPEC §9), parsed. */
export type Command =
  | { kind: 'mcp'; server?: string }
  /** `/mcp enable|disable NAME [--persist]`: for this session, or in the user settings file. */
  | { kind: 'enable' | 'disable'; server: string; persist: boolean }
  | { kind: 'reload' }
  | { kind: 'reconnect'; server: string }
  | { kind: 'tools'; server?: string }
  | { kind: 'call'; tool: string; args: Record<string, unknown> }
  | { kind: 'approve'; server: string }
  | { kind: 'reject'; server: string }
  | { kind: 'help' }
  | { kind: 'quit' };

export type ParseResult = { ok: true; command: Command } | { ok: false; error: string };

/** How a command's argument is completed. */
export type ArgKind = 'none' | 'server' | 'tool';

export interface CommandSpec {
  name: `/${string}`;
  usage: string;
  summary: string;
  arg: ArgKind;
}

/** Every command, in the order `/help` lists them. */
export const COMMANDS: readonly CommandSpec[] = [
  { name: '/mcp', usage: '/mcp [NAME]', summary: 'list the servers, or show one in detail', arg: 'server' },
  { name: '/reload', usage: '/reload', summary: 'reconcile now with the current settings', arg: 'none' },
  { name: '/reconnect', usage: '/reconnect NAME', summary: 'disconnect and connect a server again', arg: 'server' },
  { name: '/tools', usage: '/tools [NAME]', summary: 'list the tools (of one server)', arg: 'server' },
  { name: '/call', usage: '/call TOOL [{json args}]', summary: 'call a tool by its qualified name', arg: 'tool' },
  { name: '/approve', usage: '/approve NAME', summary: 'approve a workspace server (remembered)', arg: 'server' },
  { name: '/reject', usage: '/reject NAME', summary: 'reject a workspace server (remembered)', arg: 'server' },
  { name: '/help', usage: '/help', summary: 'show this list', arg: 'none' },
  { name: '/quit', usage: '/quit', summary: 'end the session (every server is stopped)', arg: 'none' },
];

const usage = (name: string): ParseResult => ({
  ok: false,
  error: `Usage: ${COMMANDS.find((c) => c.name === name)?.usage ?? name}`,
});

/**
 * Parses one line typed at the prompt. Pure: what it returns is all that happens.
 * Everything after `/call TOOL` is one JSON object (spaces allowed); missing means `{}`.
 */
export function parseCommand(line: string): ParseResult {
  const text = line.trim();
  if (text === '') return { ok: false, error: 'Type a command, e.g. /help' };
  if (!text.startsWith('/')) return { ok: false, error: `Commands start with "/" — type /help for the list.` };
  const [name = '', ...words] = text.split(/\s+/);
  const [first] = words;
  const optional = words.length <= 1;
  const one = words.length === 1 && first !== undefined;
  switch (name) {
    case '/mcp':
      // `/mcp enable` alone still shows a server called "enable".
      if ((first === 'enable' || first === 'disable') && words.length > 1) return parseEnablement(first, words.slice(1));
      if (!optional) return usage(name);
      return { ok: true, command: first === undefined ? { kind: 'mcp' } : { kind: 'mcp', server: first } };
    case '/tools':
      if (!optional) return usage(name);
      return { ok: true, command: first === undefined ? { kind: 'tools' } : { kind: 'tools', server: first } };
    case '/reconnect':
      return one ? { ok: true, command: { kind: 'reconnect', server: first } } : usage(name);
    case '/approve':
      return one ? { ok: true, command: { kind: 'approve', server: first } } : usage(name);
    case '/reject':
      return one ? { ok: true, command: { kind: 'reject', server: first } } : usage(name);
    case '/reload':
      return words.length === 0 ? { ok: true, command: { kind: 'reload' } } : usage(name);
    case '/help':
      return words.length === 0 ? { ok: true, command: { kind: 'help' } } : usage(name);
    case '/quit':
      return words.length === 0 ? { ok: true, command: { kind: 'quit' } } : usage(name);
    case '/call':
      return parseCall(text.slice(name.length).trim());
    default:
      return { ok: false, error: `Unknown command "${name}" — type /help for the list.` };
  }
}

const ENABLEMENT_USAGE = 'Usage: /mcp enable NAME [--persist] · /mcp disable NAME [--persist]';

function parseEnablement(kind: 'enable' | 'disable', words: readonly string[]): ParseResult {
  const persist = words.includes('--persist');
  const names = words.filter((w) => w !== '--persist');
  const [server] = names;
  if (names.length !== 1 || server === undefined || server.startsWith('-')) return { ok: false, error: ENABLEMENT_USAGE };
  return { ok: true, command: { kind, server, persist } };
}

function parseCall(rest: string): ParseResult {
  const match = /^(\S+)\s*([\s\S]*)$/.exec(rest);
  if (!match) return usage('/call');
  const tool = match[1]!;
  const json = match[2]!.trim();
  if (json === '') return { ok: true, command: { kind: 'call', tool, args: {} } };
  let args: unknown;
  try {
    args = JSON.parse(json);
  } catch (err) {
    return { ok: false, error: `Arguments of /call must be a JSON object: ${(err as Error).message}` };
  }
  if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    return { ok: false, error: 'Arguments of /call must be a JSON object, e.g. {"text": "hi"}' };
  }
  return { ok: true, command: { kind: 'call', tool, args: args as Record<string, unknown> } };
}

/** What the screen shows after a command. */
export interface Output {
  tone: 'info' | 'success' | 'error';
  lines: string[];
}

/** Which main view is up. */
export type View = { kind: 'list' } | { kind: 'detail'; server: string };

export interface CommandOutcome {
  view?: View;
  output?: Output;
  quit?: boolean;
}

/** What a command may use: the session's controls, and what the screen shows right now. */
export interface CommandContext {
  live: Pick<McpLive, 'reload' | 'reconnect' | 'approve' | 'reject' | 'enable' | 'disable' | 'callTool' | 'toolNotFoundMessage'>;
  servers: readonly ServerStatus[];
  tools: readonly QualifiedTool[];
}

const info = (...lines: string[]): Output => ({ tone: 'info', lines });
const success = (...lines: string[]): Output => ({ tone: 'success', lines });
const failure = (...lines: string[]): Output => ({ tone: 'error', lines });

/** Parses and runs one line; a parse error is an error output and nothing else happens. */
export async function runCommandLine(line: string, ctx: CommandContext): Promise<CommandOutcome> {
  const parsed = parseCommand(line);
  if (!parsed.ok) return { output: failure(parsed.error) };
  return executeCommand(parsed.command, ctx);
}

/** Runs a parsed command. Never rejects: a failure becomes an error output. */
export async function executeCommand(command: Command, ctx: CommandContext): Promise<CommandOutcome> {
  try {
    return await execute(command, ctx);
  } catch (err) {
    return { output: failure(err instanceof Error ? err.message : String(err)) };
  }
}

async function execute(command: Command, ctx: CommandContext): Promise<CommandOutcome> {
  const { live } = ctx;
  const find = (name: string) => ctx.servers.find((s) => s.name === name);
  const unknown = (name: string): CommandOutcome => ({
    output: failure(
      `No MCP server "${name}" is configured.`,
      ctx.servers.length > 0 ? `Known: ${ctx.servers.map((s) => s.name).join(', ')}` : 'No servers are configured.',
    ),
  });

  switch (command.kind) {
    case 'mcp':
      if (command.server === undefined) return { view: { kind: 'list' } };
      return find(command.server) ? { view: { kind: 'detail', server: command.server } } : unknown(command.server);

    case 'reload':
      live.reload();
      return { output: info('Reloading: a reconcile pass runs now with the current settings.') };

    case 'reconnect': {
      const server = find(command.server);
      if (live.reconnect(command.server)) return { output: info(`Reconnecting ${command.server}…`) };
      if (!server) return unknown(command.server);
      return { output: failure(`Cannot reconnect ${command.server}: ${statusText(server) ?? server.state}.`) };
    }

    case 'tools': {
      if (command.server !== undefined) {
        const server = find(command.server);
        if (!server) return unknown(command.server);
        if (server.state !== 'connected') {
          return { output: info(`${command.server} has no tools: ${statusText(server) ?? server.state}.`) };
        }
      }
      const tools = command.server === undefined ? ctx.tools : ctx.tools.filter((t) => t.server === command.server);
      if (tools.length === 0) return { output: info('No tools.') };
      const width = Math.max(...tools.map((t) => t.name.length)) + 2;
      return {
        output: info(
          `${tools.length} tool${tools.length === 1 ? '' : 's'}:`,
          ...tools.map((t) => (t.description ? `${t.name.padEnd(width)}${t.description.split('\n')[0]}` : t.name)),
        ),
      };
    }

    case 'call': {
      if (!ctx.tools.some((t) => t.name === command.tool)) {
        return { output: failure(live.toolNotFoundMessage(command.tool)) };
      }
      const result = await live.callTool(command.tool, command.args);
      const { isError, lines } = formatToolResult(result);
      return { output: { tone: isError ? 'error' : 'success', lines } };
    }

    case 'approve':
      await live.approve(command.server, { persist: true });
      return { output: success(`Approved ${command.server} — it connects now.`) };

    case 'reject':
      await live.reject(command.server);
      return { output: success(`Rejected ${command.server} — edit its config to be asked again.`) };

    case 'enable':
    case 'disable': {
      if (!find(command.server)) return unknown(command.server);
      const options = { persist: command.persist };
      const change = command.kind === 'enable' ? await live.enable(command.server, options) : await live.disable(command.server, options);
      const done = `${command.kind === 'enable' ? 'Enabled' : 'Disabled'} ${command.server}`;
      if (change.file !== undefined) return { output: success(`${done} in ${change.file} — the session applies it when it reads the file.`) };
      if (change.stillBlocked !== undefined) return { output: info(`${done} for this session; it is still blocked: ${change.stillBlocked}.`) };
      return { output: success(`${done} for this session${command.kind === 'enable' ? '' : ' (--persist writes it into your user settings)'}.`) };
    }

    case 'help':
      return { output: info(...helpLines()) };

    case 'quit':
      return { quit: true };
  }
}

export function helpLines(): string[] {
  const width = Math.max(...COMMANDS.map((c) => c.usage.length)) + 2;
  return [
    ...COMMANDS.map((c) => `${c.usage.padEnd(width)}${c.summary}`),
    '/mcp enable|disable NAME [--persist]  for this session, or (--persist) in your user settings',
    '↑↓ select a server, Enter its detail, Esc back · Tab completes · ↑↓ in a typed line: history · Ctrl-C quits',
  ];
}

/**
 * An MCP `tools/call` result as lines: the text of its content items (other kinds by a short
 * tag), or the JSON of anything else. `isError: true` results are shown as errors.
 */
export function formatToolResult(result: unknown): { isError: boolean; lines: string[] } {
  if (typeof result === 'object' && result !== null && Array.isArray((result as { content?: unknown }).content)) {
    const r = result as { content: unknown[]; isError?: unknown };
    const lines = r.content.flatMap((item) => contentLines(item));
    return { isError: r.isError === true, lines: lines.length > 0 ? lines : ['(empty result)'] };
  }
  return { isError: false, lines: (JSON.stringify(result, null, 2) ?? String(result)).split('\n') };
}

function contentLines(item: unknown): string[] {
  if (typeof item !== 'object' || item === null) return [String(item)];
  const c = item as { type?: unknown; text?: unknown; mimeType?: unknown; resource?: { uri?: unknown }; uri?: unknown };
  if (c.type === 'text' && typeof c.text === 'string') return c.text.split('\n');
  if (c.type === 'image' || c.type === 'audio') return [`[${c.type} ${typeof c.mimeType === 'string' ? c.mimeType : ''}]`.replace(' ]', ']')];
  if (c.type === 'resource' && c.resource) return [`[resource ${String(c.resource.uri)}]`];
  if (c.type === 'resource_link') return [`[resource link ${String(c.uri)}]`];
  return JSON.stringify(item, null, 2).split('\n');
}
