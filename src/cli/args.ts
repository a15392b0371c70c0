import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { EXPOSED_NAME_MODES, type ExposedNames } from '../model/gateway/gatewayView.js';
import type { TransportKind } from '../model/types.js';
import type { McpLiveOptions } from '../live/types.js';
import { DEFAULT_IDLE_GRACE_MS } from '../sinks/mcp/connectionPool.js';
import { commaList, EDITABLE_SCOPES, serverEntryFromFlags, type EditableScope } from './serverEntryFromFlags.js';
import { unknownOptionMessage } from './unknownOption.js';
import { UsageError } from './usageError.js';

export { UsageError } from './usageError.js';
export type { EditableScope } from './serverEntryFromFlags.js';

/**
 * The session options a command line can set, as the library names them (decision 348): a new
 * option of `McpLiveOptions` the CLI offers is added to this list and parsed, nothing else.
 */
type CliLiveOptions = Pick<McpLiveOptions, 'userSettings' | 'systemSettings' | 'allowedMcpServerNames' | 'approvalsFile' | 'debounceMs'> &
  Required<Pick<McpLiveOptions, 'cwd' | 'profile' | 'mcpConfig' | 'lspConfig' | 'strategy'>>;

/**
 * Options shared by every command (docs/contract.md, "Command line"): the session's (given to
 * `createMcpLive` as they are) and `--demo`.
 */
export interface CommonOptions extends CliLiveOptions {
  demo: boolean;
}

export type CliCommand =
  | { kind: 'session'; json: boolean; options: CommonOptions }
  | { kind: 'status'; json: boolean; options: CommonOptions }
  | { kind: 'plan'; json: boolean; options: CommonOptions }
  | { kind: 'approvals'; action: 'list'; json: boolean; options: CommonOptions }
  | {
      kind: 'approvals';
      action: 'approve' | 'reject' | 'forget';
      server: string;
      /** `--hash H`: decide only if the entry's approval hash is still H. */
      hash?: string;
      json: boolean;
      options: CommonOptions;
    }
  | McpCommand
  | {
      kind: 'trust';
      /** `untrust` writes DO_NOT_TRUST: the folder and everything below it, whatever a parent says. */
      action: 'trust' | 'untrust';
      /** Absolute: DIR against the shell's directory, default the workspace (`--cwd`). */
      dir: string;
      json: boolean;
      options: CommonOptions;
    }
  | { kind: 'auth'; action: 'login' | 'logout'; server: string; json: boolean; options: CommonOptions }
  | ServeCommand
  | { kind: 'help' }
  | { kind: 'version' };

/** The port `mcp-live serve` listens on over HTTP when `--port` is not given (127.0.0.1 only). */
export const DEFAULT_GATEWAY_PORT = 7430;

/**
 * `mcp-live serve`: the gateway. `run` is a foreground gateway (HTTP and the local
 * socket); `stdio` attaches a client's stdio to the workspace's gateway, starting a `daemon` when
 * none runs; `daemon` is that background gateway (internal: only `stdio` starts it).
 */
export interface ServeCommand {
  kind: 'serve';
  action: 'run' | 'stdio' | 'daemon' | 'print-token' | 'stop';
  /** `--port`: for `run` default {@link DEFAULT_GATEWAY_PORT}; a daemon serves HTTP only when given. 0 = any free port. */
  port?: number;
  /**
   * `--names`: tools and prompts as `server__tool` (`server`, the default), under the library's
   * qualified names (`mcp__server__tool`) or as the servers name them (decision 222).
   */
  names: ExposedNames;
  /**
   * `--progressive` (`always`) or `--progressive auto`: tools/list shows only search_tools,
   * call_tool and describe_tool — always, or while the catalog is over 40 tools or 10,000
   * estimated tokens (decisions 216, 217). Absent: every tool is listed.
   */
  progressive?: 'always' | 'auto';
  /** `--ui`: the interactive session of the gateway in this terminal (for approving). */
  ui: boolean;
  /** `--linger-ms`: how long a daemon outlives its last client (default: the pool's idle grace). */
  lingerMs?: number;
  /**
   * `--restart-on-change` (with `--stdio` only): the relay ends the client's session once the
   * lists it has read change, for clients that ignore `list_changed` (decisions 226–228).
   */
  restartOnChange?: true;
  json: boolean;
  options: CommonOptions;
}

/** `mcp-live mcp add | remove | list | get | enable | disable`: managing servers without an editor. */
export type McpCommand =
  | {
      kind: 'mcp';
      action: 'add';
      server: string;
      scope: EditableScope;
      transport: TransportKind;
      /** The entry as it is written (see `serverEntryFromFlags`). */
      entry: Record<string, unknown>;
      /** `--force`: replace an entry of that name in that scope. */
      force: boolean;
      json: boolean;
      options: CommonOptions;
    }
  /** Without `scope`: the one editable scope that defines it. */
  | { kind: 'mcp'; action: 'remove'; server: string; scope?: EditableScope; json: boolean; options: CommonOptions }
  | { kind: 'mcp'; action: 'list'; json: boolean; options: CommonOptions }
  | { kind: 'mcp'; action: 'get'; server: string; json: boolean; options: CommonOptions }
  /** Writes (`disable`) or removes (`enable`) `disabled: true` in the user settings file (decision 250). */
  | { kind: 'mcp'; action: 'enable' | 'disable'; server: string; json: boolean; options: CommonOptions };

export const USAGE = `Usage:
  mcp-live [options]            interactive session
  mcp-live --json [options]     headless: NDJSON events on stdout, JSON commands on stdin
  mcp-live status [--json]      connect once, print every server's state, exit (1 if any error)
  mcp-live plan [--json]        dry run: servers, sources, admission and reasons; spawns nothing
  mcp-live approvals list | approve NAME [--hash H] | reject NAME [--hash H] | forget NAME
  mcp-live mcp add NAME [add options] -- COMMAND [ARGS…]     add a stdio server
  mcp-live mcp add NAME --transport http|sse URL [add options]  add a remote server
  mcp-live mcp remove NAME [--scope S]   remove it (without --scope: from the one scope defining it)
  mcp-live mcp list [--json]             every server: scope, source file, admission (the plan view)
  mcp-live mcp get NAME [--json]         one entry as written (secrets masked), its scope and admission
  mcp-live mcp disable|enable NAME       write or remove "disabled": true in your user settings (comments kept)
  mcp-live trust [DIR] | untrust [DIR]   trust the folder (default: the workspace) or mark it untrusted
  mcp-live auth NAME                     authorize a remote server (OAuth): prints the URL, waits, stores the token
  mcp-live auth logout NAME              forget its stored tokens
  mcp-live serve [serve options]         one MCP server fronting the live set: HTTP on 127.0.0.1 + a local socket
  mcp-live serve --stdio [serve options] for a client's config: attach to the workspace's gateway (start it if none)
  mcp-live serve --print-token           the bearer token of the HTTP endpoint
  mcp-live serve --stop                  end the workspace's running gateway of this --profile and its servers

Add options:
  -s, --scope user|project|workspace  where: ~/.NAME/settings.json (default), .mcp.json, .NAME/settings.json
  -t, --transport stdio|http|sse      default stdio; http for a lone http(s):// URL
  -e, --env KEY=value                 environment of a stdio server (repeatable)
  -H, --header "Name: value"          header of a remote server (repeatable)
  --include-tools a,b  --exclude-tools a,b  --timeout MS  --description TEXT
  --force                             replace an entry of that name in that scope

Serve options:
  --stdio                             speak MCP on stdin/stdout (a client launches this)
  --port N                            HTTP port on 127.0.0.1 (default ${DEFAULT_GATEWAY_PORT}; 0: any free port; with
                                      --stdio the started gateway serves HTTP only when given)
  --names server|qualified|original   tool and prompt names: server__tool (default), mcp__server__tool, or as
                                      each server names them (mcp__server__tool where two share one); always
                                      letters, digits, _ and -, at most 64 characters
  --restart-on-change                 with --stdio: end the client's session when the tools, prompts or resources
                                      it listed change, so a client that ignores list_changed reconnects to list
                                      them again
  --progressive [auto]                list only search_tools, call_tool and describe_tool (the model finds the
                                      rest by search); auto: only while over 40 tools or 10,000 tokens
  --ui                                also show the interactive session (approve servers there)
  --json                              NDJSON events of the gateway on stdout (not with --stdio)
  --linger-ms MS                      a gateway started by --stdio exits MS after its last client left (default ${DEFAULT_IDLE_GRACE_MS})

Options:
  --cwd DIR                         workspace directory (default: the current directory)
  --profile NAME                    settings directory .NAME (default: qwen)
  --user-settings FILE              user settings file (default: ~/.NAME/settings.json)
  --system-settings FILE            system (admin) settings file
  --mcp-config FILE                 extra {"mcpServers": …} file (repeatable)
  --lsp-config FILE                 extra language servers, .lsp.json format (repeatable)
  --allowed-mcp-server-names a,b    upper bound on the servers that may connect (repeatable)
  --approvals-file FILE             approvals store (default: ~/.NAME/mcpApprovals.json)
  --debounce MS                     settle time for file changes (default: 300)
  --reconcile incremental|full      full restarts every server on any change (for comparison)
  --demo                            run on the bundled demo workspace
  --json                            machine-readable output
  -h, --help                        this text
  -v, --version                     the version of mcp-live
`;

/** Parses argv (without node and the script). Throws {@link UsageError} naming the bad flag. */
export function parseCliArgs(argv: readonly string[], defaults: { cwd: string }): CliCommand {
  let parsed;
  try {
    parsed = parseArgs({ args: withProgressiveValue(argv), allowPositionals: true, strict: true, options: ALL_OPTIONS });
  } catch (err) {
    const unknown = (err as { code?: unknown }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? unknownOption(argv) : undefined;
    // `mcp add x node s.js --port 3`: the server's own options must follow `--`.
    const hint = argv.includes('mcp') ? MCP_ARGS_HINT : '';
    throw new UsageError((unknown ?? (err instanceof Error ? err.message : String(err))) + hint);
  }
  const { values, positionals } = parsed;
  if (values.help) return { kind: 'help' };
  if (values.version) return { kind: 'version' };

  const debounce = values.debounce;
  let debounceMs: number | undefined;
  if (debounce !== undefined) {
    debounceMs = Number(debounce);
    if (!/^\d+$/.test(debounce) || !Number.isSafeInteger(debounceMs)) {
      throw new UsageError(`--debounce expects a whole number of milliseconds, got "${debounce}"`);
    }
  }
  const strategy = values.reconcile ?? 'incremental';
  if (strategy !== 'incremental' && strategy !== 'full') {
    throw new UsageError(`--reconcile expects "incremental" or "full", got "${strategy}"`);
  }
  const profile = values.profile ?? 'qwen';
  if (!/^[A-Za-z0-9._-]+$/.test(profile) || profile === '.' || profile === '..') {
    throw new UsageError(`--profile expects a plain name such as "qwen" or "gemini", got "${profile}"`);
  }
  // Repeated flags accumulate, as in Gemini CLI: `--allowed-mcp-server-names a --allowed-mcp-server-names b,c`.
  const allowedFlags = values['allowed-mcp-server-names'];
  if (allowedFlags?.some((flag) => commaList([flag]).length === 0)) {
    throw new UsageError('--allowed-mcp-server-names needs at least one name (a,b or globs such as "git*")');
  }
  const allowed = allowedFlags === undefined ? undefined : commaList(allowedFlags);
  const options: CommonOptions = {
    cwd: values.cwd ?? defaults.cwd,
    profile,
    userSettings: values['user-settings'],
    systemSettings: values['system-settings'],
    mcpConfig: values['mcp-config'] ?? [],
    lspConfig: values['lsp-config'] ?? [],
    allowedMcpServerNames: allowed,
    approvalsFile: values['approvals-file'],
    debounceMs,
    demo: values.demo ?? false,
    strategy,
  };
  const json = values.json ?? false;
  const [command, ...rest] = positionals;
  if (values.hash !== undefined && command !== 'approvals') throw new UsageError('--hash goes with approvals approve|reject');
  const misplaced = Object.keys(MCP_ADD_OPTIONS).find(
    (key) => values[key as keyof typeof values] !== undefined && !(command === 'mcp' && (rest[0] === 'add' || (key === 'scope' && rest[0] === 'remove'))),
  );
  if (misplaced !== undefined) throw new UsageError(`--${misplaced} goes with mcp add${misplaced === 'scope' ? ' | mcp remove' : ''}`);
  if (values.session !== undefined && !(command === 'mcp' && (rest[0] === 'enable' || rest[0] === 'disable'))) {
    throw new UsageError(command === 'mcp' ? `unknown option --session${MCP_ARGS_HINT}` : '--session goes with mcp enable | mcp disable');
  }
  const serveFlag = Object.keys(SERVE_OPTIONS).find((key) => values[key as keyof typeof values] !== undefined && command !== 'serve');
  if (serveFlag !== undefined) {
    // `mcp add x node s.js --port 3`: the server's option, as parseArgs says of the ones it does not know.
    throw new UsageError(command === 'mcp' ? `unknown option --${serveFlag}${MCP_ARGS_HINT}` : `--${serveFlag} goes with serve`);
  }
  switch (command) {
    case undefined:
      return { kind: 'session', json, options };
    case 'status':
    case 'plan':
      if (rest.length > 0) throw new UsageError(`${command} takes no arguments, got "${rest.join(' ')}"`);
      return { kind: command, json, options };
    case 'approvals': {
      const [action = 'list', server, ...extra] = rest;
      if (extra.length > 0) throw new UsageError(`approvals: unexpected "${extra.join(' ')}"`);
      if (action === 'list') return { kind: 'approvals', action, json, options };
      if (action === 'approve' || action === 'reject' || action === 'forget') {
        if (!server) throw new UsageError(`approvals ${action} needs a server NAME`);
        const hash = values.hash;
        if (hash !== undefined && (action === 'forget' || !/^[0-9a-f]{64}$/.test(hash))) {
          throw new UsageError(
            action === 'forget' ? 'approvals forget takes no --hash' : `--hash expects the 64 hex digits of an approval hash, got "${hash}"`,
          );
        }
        return { kind: 'approvals', action, server, ...(hash === undefined ? {} : { hash }), json, options };
      }
      throw new UsageError(`approvals: unknown action "${action}" (list, approve, reject, forget)`);
    }
    case 'mcp':
      return mcpCommand(rest, values, json, options);
    case 'auth': {
      const [first, second, ...extra] = rest;
      const [action, server] = first === 'logout' ? (['logout', second] as const) : (['login', first] as const);
      if (!server || extra.length > 0 || (action === 'login' && second !== undefined)) {
        throw new UsageError('auth needs one server NAME: mcp-live auth NAME | mcp-live auth logout NAME');
      }
      return { kind: 'auth', action, server, json, options };
    }
    case 'serve':
      if (rest.length > 0) throw new UsageError(`serve takes no arguments, got "${rest.join(' ')}"`);
      return serveCommand(values, json, options);
    case 'trust':
    case 'untrust': {
      if (rest.length > 1) throw new UsageError(`${command} takes one DIR, got "${rest.join(' ')}"`);
      return { kind: 'trust', action: command, dir: resolve(defaults.cwd, rest[0] ?? options.cwd), json, options };
    }
    default:
      throw new UsageError(`unknown command "${command}" (status, plan, approvals, mcp, auth, trust, untrust, serve, or none for a session)`);
  }
}

const MCP_ARGS_HINT = " (a server's own options go after --: mcp add NAME -- COMMAND ARGS…)";

/**
 * `--progressive` takes a value only when it is `auto` or `always` (parseArgs has no optional
 * values): `--progressive auto` → `--progressive=auto`, a bare `--progressive` →
 * `--progressive=always`. Words after `--` are a server's own and left alone.
 */
function withProgressiveValue(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    if (word === '--') return [...out, ...argv.slice(i)];
    if (word !== '--progressive') out.push(word);
    else if (argv[i + 1] === 'auto' || argv[i + 1] === 'always') out.push(`--progressive=${argv[++i]!}`);
    else out.push('--progressive=always');
  }
  return out;
}

/** The options of `mcp add` (`--scope` also of `mcp remove`); the short letters are Gemini CLI's and Claude Code's. */
const MCP_ADD_OPTIONS = {
  scope: { type: 'string', short: 's' },
  transport: { type: 'string', short: 't' },
  env: { type: 'string', short: 'e', multiple: true },
  header: { type: 'string', short: 'H', multiple: true },
  'include-tools': { type: 'string', multiple: true },
  'exclude-tools': { type: 'string', multiple: true },
  timeout: { type: 'string' },
  description: { type: 'string' },
  force: { type: 'boolean' },
} as const;

/**
 * `--session` of `mcp enable|disable` (Gemini CLI's): parsed only to be refused with the way to
 * do it, since no command reaches a running session (decision 250).
 */
const MCP_TOGGLE_OPTIONS = {
  session: { type: 'boolean' },
} as const;

/** The options of `serve` (`--daemon` is internal: the gateway `--stdio` starts in the background). */
const SERVE_OPTIONS = {
  stdio: { type: 'boolean' },
  port: { type: 'string' },
  names: { type: 'string' },
  progressive: { type: 'string' },
  'restart-on-change': { type: 'boolean' },
  ui: { type: 'boolean' },
  'linger-ms': { type: 'string' },
  'print-token': { type: 'boolean' },
  stop: { type: 'boolean' },
  daemon: { type: 'boolean' },
} as const;

/** The options every command takes. */
const COMMON_OPTIONS = {
  cwd: { type: 'string' },
  profile: { type: 'string' },
  'user-settings': { type: 'string' },
  'system-settings': { type: 'string' },
  'mcp-config': { type: 'string', multiple: true },
  'lsp-config': { type: 'string', multiple: true },
  'allowed-mcp-server-names': { type: 'string', multiple: true },
  'approvals-file': { type: 'string' },
  debounce: { type: 'string' },
  reconcile: { type: 'string' },
  demo: { type: 'boolean' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
} as const;

/** What parseArgs knows: a flag of another command is refused afterwards with the command it goes with. */
const ALL_OPTIONS = {
  ...COMMON_OPTIONS,
  hash: { type: 'string' },
  ...MCP_ADD_OPTIONS,
  ...MCP_TOGGLE_OPTIONS,
  ...SERVE_OPTIONS,
} as const;

/** The long flags a command takes, what a misspelt flag is compared with (`--daemon` is internal). */
function flagsOf(command: string | undefined): string[] {
  const own =
    command === 'approvals'
      ? ['hash']
      : command === 'mcp'
        ? [...Object.keys(MCP_ADD_OPTIONS), ...Object.keys(MCP_TOGGLE_OPTIONS)]
        : command === 'serve'
          ? Object.keys(SERVE_OPTIONS).filter((flag) => flag !== 'daemon')
          : [];
  return [...Object.keys(COMMON_OPTIONS), ...own];
}

/**
 * The words for the first flag of `argv` that no command knows (decision 324), with the closest
 * flag of the command it was given to; undefined when there is none after all.
 */
function unknownOption(argv: readonly string[]): string | undefined {
  const { tokens, positionals } = parseArgs({ args: withProgressiveValue(argv), allowPositionals: true, strict: false, tokens: true, options: ALL_OPTIONS });
  const unknown = tokens.find((t) => t.kind === 'option' && !Object.hasOwn(ALL_OPTIONS, t.name));
  return unknown?.kind === 'option' ? unknownOptionMessage(unknown.rawName, flagsOf(positionals[0])) : undefined;
}

interface ServeFlags {
  stdio?: boolean;
  port?: string;
  names?: string;
  progressive?: string;
  'restart-on-change'?: boolean;
  ui?: boolean;
  'linger-ms'?: string;
  'print-token'?: boolean;
  stop?: boolean;
  daemon?: boolean;
}

function serveCommand(flags: ServeFlags, json: boolean, options: CommonOptions): ServeCommand {
  const modes = (['stdio', 'daemon', 'print-token', 'stop'] as const).filter((mode) => flags[mode] === true);
  if (modes.length > 1) throw new UsageError(`serve: --${modes[0]} and --${modes[1]} exclude each other`);
  const action = modes[0] ?? 'run';
  if (options.demo) throw new UsageError('serve does not run the demo; give it a workspace with --cwd');
  if (action === 'stdio' && json) throw new UsageError('serve --stdio: stdout is the MCP channel, so no --json');
  if (flags.ui === true && (action !== 'run' || json)) throw new UsageError('--ui goes with serve alone (not --stdio or --json)');
  if (action === 'print-token' || action === 'stop') {
    const extra = (['port', 'names', 'progressive', 'restart-on-change', 'ui', 'linger-ms'] as const).find((key) => flags[key] !== undefined);
    if (extra !== undefined) throw new UsageError(`serve --${action} takes no --${extra}`);
  }
  // A relay's behaviour: a gateway of its own has no relay to end (decision 228).
  if (flags['restart-on-change'] === true && action !== 'stdio') throw new UsageError('--restart-on-change goes with serve --stdio');
  const names = flags.names ?? EXPOSED_NAME_MODES[0]!;
  if (!isExposedNames(names)) throw new UsageError(`--names expects ${EXPOSED_NAME_MODES.map((m) => `"${m}"`).join(', ')}, got "${names}"`);
  const progressive = flags.progressive;
  if (progressive !== undefined && progressive !== 'always' && progressive !== 'auto') {
    throw new UsageError(`--progressive expects nothing, "auto" or "always", got "${progressive}"`);
  }
  const port = flags.port === undefined ? undefined : wholeNumber('--port', flags.port, 'a port number');
  if (port !== undefined && port > 65535) throw new UsageError(`--port expects a port number (0–65535), got "${flags.port}"`);
  const lingerMs = flags['linger-ms'] === undefined ? undefined : wholeNumber('--linger-ms', flags['linger-ms'], 'a whole number of milliseconds');
  return {
    kind: 'serve',
    action,
    ...(port === undefined ? {} : { port }),
    names,
    ...(progressive === undefined ? {} : { progressive }),
    ui: flags.ui ?? false,
    ...(lingerMs === undefined ? {} : { lingerMs }),
    ...(flags['restart-on-change'] === true ? { restartOnChange: true as const } : {}),
    json,
    options,
  };
}

function isExposedNames(text: string): text is ExposedNames {
  return (EXPOSED_NAME_MODES as readonly string[]).includes(text);
}

function wholeNumber(flag: string, text: string, what: string): number {
  const value = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(value)) throw new UsageError(`${flag} expects ${what}, got "${text}"`);
  return value;
}

interface McpFlags {
  scope?: string;
  transport?: string;
  env?: string[];
  header?: string[];
  'include-tools'?: string[];
  'exclude-tools'?: string[];
  timeout?: string;
  description?: string;
  force?: boolean;
  session?: boolean;
}

/** `mcp add|remove|list|get|enable|disable …` (the words after `mcp`, `--` words included in order). */
function mcpCommand(words: readonly string[], flags: McpFlags, json: boolean, options: CommonOptions): McpCommand {
  const [action, server, ...more] = words;
  const needsName = (): string => {
    if (server === undefined || server === '') throw new UsageError(`mcp ${action} needs a server NAME`);
    return server;
  };
  switch (action) {
    case 'add': {
      const name = needsName();
      const scope = scopeOf(flags.scope) ?? 'user';
      const { transport, entry } = serverEntryFromFlags(
        {
          name,
          transport: flags.transport,
          words: more,
          env: flags.env ?? [],
          header: flags.header ?? [],
          includeTools: flags['include-tools'] ?? [],
          excludeTools: flags['exclude-tools'] ?? [],
          timeout: flags.timeout,
          description: flags.description,
        },
        scope,
      );
      return { kind: 'mcp', action, server: name, scope, transport, entry, force: flags.force ?? false, json, options };
    }
    case 'remove': {
      const name = needsName();
      if (more.length > 0) throw new UsageError(`mcp remove: unexpected "${more.join(' ')}"`);
      const scope = scopeOf(flags.scope);
      return { kind: 'mcp', action, server: name, ...(scope === undefined ? {} : { scope }), json, options };
    }
    case 'get': {
      const name = needsName();
      if (more.length > 0) throw new UsageError(`mcp get: unexpected "${more.join(' ')}"`);
      return { kind: 'mcp', action, server: name, json, options };
    }
    case 'list':
      if (words.length > 1) throw new UsageError(`mcp list takes no arguments, got "${words.slice(1).join(' ')}"`);
      return { kind: 'mcp', action, json, options };
    case 'enable':
    case 'disable': {
      const name = needsName();
      if (more.length > 0) throw new UsageError(`mcp ${action}: unexpected "${more.join(' ')}"`);
      if (flags.session === true) {
        // Gemini CLI's `--session` is session-only; no command of ours reaches a running session (decision 250).
        const cmd = JSON.stringify({ cmd: action, server: name });
        throw new UsageError(
          `mcp ${action} --session: no command reaches a running session; in it, use /mcp ${action} ${name} (or ${cmd} with --json). ` +
            `Without --session, mcp ${action} writes your user settings, which a running session follows`,
        );
      }
      return { kind: 'mcp', action, server: name, json, options };
    }
    default:
      throw new UsageError(
        action === undefined
          ? 'mcp needs an action: add, remove, list, get, enable or disable'
          : `mcp: unknown action "${action}" (add, remove, list, get, enable, disable)`,
      );
  }
}

function scopeOf(scope: string | undefined): EditableScope | undefined {
  if (scope === undefined) return undefined;
  if ((EDITABLE_SCOPES as readonly string[]).includes(scope)) return scope as EditableScope;
  throw new UsageError(`--scope expects user, project or workspace, got "${scope}"`);
}
