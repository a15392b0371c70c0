import type { McpLive, McpLiveApprovals, McpLiveAuth, McpLivePrompts, McpLiveResources, McpLiveServers, McpLiveSession, McpLiveTools } from '../../../live/types.js';
import { lspKey, lspName, serverKind } from '../../../model/serverKeys.js';
import type { ServerKind } from '../../../model/types.js';
import { refusedAuthorizationUrl } from '../../../model/oauth/oauthUrlPolicy.js';
import type { QualifiedTool, ServerStatus } from '../../../model/report/status.js';
import { openInBrowser } from '../../../sinks/remote/openBrowser.js';
import { listsTools, statusText } from '../text/serverSummary.js';

/** A command of the interactive session (docs/contract.md, "Interactive session"), parsed. */
export type Command =
  | { kind: 'mcp'; server?: string }
  /** `/lsp [NAME]`: the language servers, or one (NAME with or without its `lsp:` prefix). */
  | { kind: 'lsp'; server?: string }
  /** `/mcp enable|disable NAME [--persist]`: for this session, or in the user settings file. */
  | { kind: 'enable' | 'disable'; server: string; persist: boolean }
  /** `/mcp auth NAME`: authorize a remote server in the browser; `/mcp logout NAME`: forget its tokens. */
  | { kind: 'auth' | 'logout'; server: string }
  | { kind: 'reload' }
  | { kind: 'reconnect'; server: string }
  | { kind: 'tools'; server?: string }
  | { kind: 'call'; tool: string; args: Record<string, unknown> }
  /** `/prompt [SERVER] NAME [{json}]`: a prompt filled in; SERVER only when more than one lists NAME. */
  | { kind: 'prompt'; name: string; server?: string; args: Record<string, string> }
  /** `/read [SERVER] URI`: one resource. */
  | { kind: 'read'; uri: string; server?: string }
  | { kind: 'approve'; server: string }
  | { kind: 'reject'; server: string }
  /** `/trust`: the session's folder, as `mcp-live trust` (decision 304). */
  | { kind: 'trust' }
  | { kind: 'help' }
  | { kind: 'quit' };

export type ParseResult = { ok: true; command: Command } | { ok: false; error: string };

/**
 * How a command's argument is completed: `server` any server by its key (a language server as
 * `lsp:NAME`), `mcpServer` an MCP server, `lspServer` a language server by its own name, `tool` a
 * qualified tool name; `text`: it takes one, with nothing to complete.
 */
export type ArgKind = 'none' | 'server' | 'mcpServer' | 'lspServer' | 'tool' | 'text';

export interface CommandSpec {
  name: `/${string}`;
  usage: string;
  summary: string;
  arg: ArgKind;
}

/** Every command, in the order `/help` lists them. */
export const COMMANDS: readonly CommandSpec[] = [
  { name: '/mcp', usage: '/mcp [NAME]', summary: 'list the MCP servers, or show one in detail', arg: 'mcpServer' },
  { name: '/lsp', usage: '/lsp [NAME]', summary: 'list the language servers, or show one in detail', arg: 'lspServer' },
  { name: '/reload', usage: '/reload', summary: 'reconcile now with the current settings', arg: 'none' },
  { name: '/reconnect', usage: '/reconnect NAME', summary: 'disconnect and connect a server again (an idle one: start it)', arg: 'server' },
  { name: '/tools', usage: '/tools [NAME]', summary: 'list the tools (of one server)', arg: 'mcpServer' },
  { name: '/call', usage: '/call TOOL [{json args}]', summary: 'call a tool by its qualified name', arg: 'tool' },
  { name: '/prompt', usage: '/prompt [SERVER] NAME [{json args}]', summary: 'show a prompt filled in with its arguments', arg: 'text' },
  { name: '/read', usage: '/read [SERVER] URI', summary: 'show a resource (URIs are in /mcp NAME)', arg: 'text' },
  { name: '/approve', usage: '/approve NAME', summary: 'approve a workspace server (remembered)', arg: 'server' },
  { name: '/reject', usage: '/reject NAME', summary: 'reject a workspace server (remembered)', arg: 'server' },
  { name: '/trust', usage: '/trust', summary: 'trust this folder: your own servers held here start (remembered)', arg: 'none' },
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
      if ((first === 'auth' || first === 'logout') && words.length > 1) {
        return words.length === 2 ? { ok: true, command: { kind: first, server: words[1]! } } : { ok: false, error: `Usage: /mcp ${first} NAME` };
      }
      if (!optional) return usage(name);
      return { ok: true, command: first === undefined ? { kind: 'mcp' } : { kind: 'mcp', server: first } };
    case '/lsp':
      if (!optional) return usage(name);
      return { ok: true, command: first === undefined ? { kind: 'lsp' } : { kind: 'lsp', server: first } };
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
    case '/trust':
      return words.length === 0 ? { ok: true, command: { kind: 'trust' } } : usage(name);
    case '/help':
      return words.length === 0 ? { ok: true, command: { kind: 'help' } } : usage(name);
    case '/quit':
      return words.length === 0 ? { ok: true, command: { kind: 'quit' } } : usage(name);
    case '/call':
      return parseCall(text.slice(name.length).trim());
    case '/prompt':
      return parsePrompt(text.slice(name.length).trim());
    case '/read':
      if (words.length === 1) return { ok: true, command: { kind: 'read', uri: first! } };
      return words.length === 2 ? { ok: true, command: { kind: 'read', server: first!, uri: words[1]! } } : usage(name);
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

function parsePrompt(rest: string): ParseResult {
  const brace = rest.indexOf('{');
  const names = (brace === -1 ? rest : rest.slice(0, brace)).trim().split(/\s+/).filter(Boolean);
  if (names.length < 1 || names.length > 2) return usage('/prompt');
  const [server, name] = names.length === 2 ? names : [undefined, names[0]];
  let args: unknown = {};
  if (brace !== -1) {
    try {
      args = JSON.parse(rest.slice(brace));
    } catch (err) {
      return { ok: false, error: `Arguments of /prompt must be a JSON object: ${(err as Error).message}` };
    }
  }
  if (typeof args !== 'object' || args === null || Array.isArray(args) || !Object.values(args).every((v) => typeof v === 'string')) {
    return { ok: false, error: 'Arguments of /prompt must be a JSON object of strings, e.g. {"city": "Paris"}' };
  }
  return { ok: true, command: { kind: 'prompt', name: name!, ...(server === undefined ? {} : { server }), args: args as Record<string, string> } };
}

/** What the screen shows after a command. */
export interface Output {
  tone: 'info' | 'success' | 'error';
  lines: string[];
}

/** Which main view is up: every server (`show` absent), one kind's (`/mcp`, `/lsp`), or one server by its key. */
export type View = { kind: 'list'; show?: ServerKind } | { kind: 'detail'; server: string };

export interface CommandOutcome {
  view?: View;
  output?: Output;
  quit?: boolean;
}

/** What a command may use: the session's controls, and what the screen shows right now. */
export interface CommandContext {
  live: Pick<McpLive, 'reload'> & {
    readonly servers: Pick<McpLiveServers, 'reconnect'>;
    readonly tools: Pick<McpLiveTools, 'call' | 'notFoundMessage'>;
    readonly approvals: Pick<McpLiveApprovals, 'approve' | 'reject'>;
    readonly session: Pick<McpLiveSession, 'enable' | 'disable'>;
    readonly auth: McpLiveAuth;
    readonly prompts: Pick<McpLivePrompts, 'get'>;
    readonly resources: Pick<McpLiveResources, 'read'>;
  };
  /** Opens a URL in the user's browser (default: the system's opener); tests pass their own. */
  openUrl?: (url: string) => Promise<void>;
  /**
   * Trusts the session's folder (`/trust`, decision 304) and resolves to the words to show;
   * absent where the session cannot write the user's trust rules (a host's own UI).
   */
  trustFolder?: () => Promise<string>;
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
  const unknown = (name: string): CommandOutcome => ({ output: failure(...unknownServerLines(name, ctx.servers)) });
  // What only an MCP server has (sign-in, tools) is refused for a language server in words.
  const mcpOnly = (name: string, what: string): CommandOutcome | undefined =>
    serverKind(name) === 'lsp' ? { output: failure(`${lspName(name)} is a language server: ${what}.`) } : undefined;

  switch (command.kind) {
    case 'mcp':
      if (command.server === undefined) return { view: { kind: 'list', show: 'mcp' } };
      return find(command.server) ? { view: { kind: 'detail', server: command.server } } : unknown(command.server);

    case 'lsp': {
      if (command.server === undefined) return { view: { kind: 'list', show: 'lsp' } };
      const key = lspKey(lspName(command.server));
      return find(key) ? { view: { kind: 'detail', server: key } } : unknown(key);
    }

    case 'reload':
      live.reload();
      return { output: info('Reloading: a reconcile pass runs now with the current settings.') };

    case 'reconnect': {
      const server = find(command.server);
      // An idle server is started, not reconnected (decision 196).
      if (live.servers.reconnect(command.server)) return { output: info(`${server?.state === 'idle' ? 'Starting' : 'Reconnecting'} ${command.server}…`) };
      if (!server) return unknown(command.server);
      return { output: failure(`Cannot reconnect ${command.server}: ${statusText(server) ?? server.state}.`) };
    }

    case 'tools': {
      if (command.server !== undefined) {
        const server = find(command.server);
        if (!server) return unknown(command.server);
        const refused = mcpOnly(command.server, 'it offers no MCP tools of its own (the lsp__* tools in /tools use every connected language server)');
        if (refused) return refused;
        // An idle server's tools are listed from its record and callable (decision 196).
        if (!listsTools(server)) {
          return { output: info(`${command.server} has no tools: ${statusText(server) ?? server.state}.`) };
        }
      }
      const tools = command.server === undefined ? ctx.tools : ctx.tools.filter((t) => t.server === command.server);
      if (tools.length === 0) return { output: info('No tools.') };
      // Not Math.max(...names): 100,000 arguments may overflow the stack (decision 192).
      const width = tools.reduce((widest, t) => Math.max(widest, t.name.length), 0) + 2;
      return {
        output: info(
          `${tools.length} tool${tools.length === 1 ? '' : 's'}:`,
          ...tools.map((t) => (t.description ? `${t.name.padEnd(width)}${t.description.split('\n')[0]}` : t.name)),
        ),
      };
    }

    case 'call': {
      if (!ctx.tools.some((t) => t.name === command.tool)) {
        return { output: failure(live.tools.notFoundMessage(command.tool)) };
      }
      const result = await live.tools.call(command.tool, command.args);
      const { isError, lines } = formatToolResult(result);
      return { output: { tone: isError ? 'error' : 'success', lines } };
    }

    case 'prompt': {
      const prompt = await live.prompts.get(command.name, command.args, { server: command.server });
      return { output: info(...formatPrompt(prompt)) };
    }

    case 'read':
      return { output: info(...formatResource(await live.resources.read(command.uri, { server: command.server }))) };

    // A server with withheld tools waits with its changed tools, not its entry (decision 197).
    case 'approve': {
      const tools = (find(command.server)?.withheld?.length ?? 0) > 0;
      await live.approvals.approve(command.server, { persist: true });
      return { output: success(tools ? `Approved the new tools of ${command.server} — the agent gets them now.` : `Approved ${command.server} — it connects now.`) };
    }

    case 'reject': {
      const tools = (find(command.server)?.withheld?.length ?? 0) > 0;
      await live.approvals.reject(command.server);
      return {
        output: success(
          tools
            ? `Rejected the new tools of ${command.server} — they stay withheld; the next session asks again.`
            : `Rejected ${command.server} — edit its config to be asked again.`,
        ),
      };
    }

    case 'enable':
    case 'disable': {
      if (!find(command.server)) return unknown(command.server);
      const options = { persist: command.persist };
      const change = command.kind === 'enable' ? await live.session.enable(command.server, options) : await live.session.disable(command.server, options);
      const done = `${command.kind === 'enable' ? 'Enabled' : 'Disabled'} ${command.server}`;
      if (change.file !== undefined) return { output: success(`${done} in ${change.file} — the session applies it when it reads the file.`) };
      if (change.stillBlocked !== undefined) return { output: info(`${done} for this session; it is still blocked: ${change.stillBlocked}.`) };
      return { output: success(`${done} for this session${command.kind === 'enable' ? '' : ' (--persist writes it into your user settings)'}.`) };
    }

    case 'auth': {
      if (!find(command.server)) return unknown(command.server);
      const refused = mcpOnly(command.server, '/mcp auth signs in to remote MCP servers only');
      if (refused) return refused;
      const { url, completed } = await live.auth.authenticate(command.server);
      // The list shows how it ends (connected, or still waiting for authorization).
      completed.catch(() => undefined);
      if (url === undefined) return { output: info(`Authorizing ${command.server} with its client credentials…`) };
      // Neither opened nor shown unless it is a web URL (decision 189), whoever handed it out.
      const notWeb = refusedAuthorizationUrl(url);
      if (notWeb !== undefined) return { output: failure(notWeb) };
      const opened = await (ctx.openUrl ?? openInBrowser)(url).then(
        () => true,
        () => false,
      );
      return {
        output: info(
          opened ? `Opened your browser to authorize ${command.server}. If it did not open, visit:` : `Open this URL to authorize ${command.server}:`,
          url,
        ),
      };
    }

    case 'logout': {
      const refused = mcpOnly(command.server, '/mcp logout forgets the tokens of remote MCP servers only');
      if (refused) return refused;
      const forgotten = await live.auth.logout(command.server);
      return { output: success(forgotten > 0 ? `Forgot the tokens of ${command.server}.` : `No tokens stored for ${command.server}.`) };
    }

    case 'trust':
      if (ctx.trustFolder === undefined) return { output: failure('This session cannot trust its folder: run `mcp-live trust` in a shell.') };
      return { output: success(await ctx.trustFolder()) };

    case 'help':
      return { output: info(...helpLines()) };

    case 'quit':
      return { quit: true };
  }
}

/**
 * Why a name given to a command names no server, and the names that do (a language server's
 * lookup: the language servers' keys only). A language server is keyed `lsp:NAME` in the commands
 * that act on any server, so a bare name that is a language server's own gets that hint.
 */
function unknownServerLines(name: string, servers: readonly ServerStatus[]): string[] {
  if (serverKind(name) === 'lsp') {
    const known = servers.filter((s) => serverKind(s.name) === 'lsp').map((s) => s.name);
    return [`No language server "${lspName(name)}" is configured.`, known.length > 0 ? `Known: ${known.join(', ')}` : 'No language servers are configured.'];
  }
  const hint = servers.some((s) => s.name === lspKey(name)) ? [`${name} is a language server: name it ${lspKey(name)}.`] : [];
  const known = servers.length > 0 ? `Known: ${servers.map((s) => s.name).join(', ')}` : 'No servers are configured.';
  return [`No MCP server "${name}" is configured.`, ...hint, known];
}

export function helpLines(): string[] {
  const width = Math.max(...COMMANDS.map((c) => c.usage.length)) + 2;
  return [
    ...COMMANDS.map((c) => `${c.usage.padEnd(width)}${c.summary}`),
    '/mcp enable|disable NAME [--persist]  for this session, or (--persist) in your user settings',
    '/mcp auth NAME · /mcp logout NAME    authorize a remote server in your browser · forget its tokens',
    'A language server is lsp:NAME in /reconnect, /approve, /reject and /mcp enable|disable.',
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

/** A `prompts/get` result as lines: its description, then each message as `role: text`. */
export function formatPrompt(result: unknown): string[] {
  const r = (typeof result === 'object' && result !== null ? result : {}) as { description?: unknown; messages?: unknown };
  const messages = Array.isArray(r.messages) ? (r.messages as { role?: unknown; content?: unknown }[]) : [];
  const lines = typeof r.description === 'string' ? [r.description, ''] : [];
  for (const m of messages) {
    const [head = '', ...rest] = contentLines(m.content);
    lines.push(`${String(m.role)}: ${head}`, ...rest);
  }
  return lines.length > 0 ? lines : ['(empty prompt)'];
}

/** A `resources/read` result as lines: each content's URI, then its text (a blob by its type and size). */
export function formatResource(result: unknown): string[] {
  const r = (typeof result === 'object' && result !== null ? result : {}) as { contents?: unknown };
  const contents = Array.isArray(r.contents) ? (r.contents as { uri?: unknown; text?: unknown; blob?: unknown; mimeType?: unknown }[]) : [];
  const lines = contents.flatMap((c) => {
    const body =
      typeof c.text === 'string'
        ? c.text.split('\n')
        : [`[${typeof c.mimeType === 'string' ? c.mimeType : 'binary'}, ${typeof c.blob === 'string' ? Math.floor((c.blob.length * 3) / 4) : 0} bytes]`];
    return [String(c.uri), ...body];
  });
  return lines.length > 0 ? lines : ['(empty resource)'];
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
