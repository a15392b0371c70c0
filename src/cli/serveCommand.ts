import { createHash } from 'node:crypto';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { McpLiveOptions } from '../live/types.js';
import { shellWord } from '../model/shellWord.js';
import { settingsPaths } from '../live/settingsPaths.js';
import { attachToGateway, relayStdio, RESTART_QUIET_MS, stopGateway } from '../hosts/gateway/gatewayDaemon.js';
import { GATEWAY_TOKEN_FILE, serveToken } from '../hosts/gateway/gatewayToken.js';
import { gatewayAddress, readGatewayRecord } from '../hosts/gateway/localSocket.js';
import { defaultRuntimeDir } from '../process/processGroupRegistry.js';
import type { ServeCommand } from './args.js';
import type { ServeIo, ServeTarget } from './serveGateway.js';

/** This CLI's entry, which a `serve --stdio` runs again as the background gateway. */
const CLI_SCRIPT = fileURLToPath(new URL('./main.js', import.meta.url));

/**
 * `mcp-live serve`. The gateway of a profile and workspace is reached through its
 * local socket; `--stdio` relays a client to it (starting it as a daemon when none runs), the
 * command alone runs it in the foreground with HTTP on 127.0.0.1 as well. Nothing here approves:
 * approvals stay in `mcp-live`, `mcp-live approvals` and `serve --ui`.
 */
export async function runServe(
  command: ServeCommand,
  options: McpLiveOptions,
  io: ServeIo = { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr },
): Promise<number> {
  const paths = settingsPaths(options);
  const target: ServeTarget = {
    cwd: paths.cwd,
    address: gatewayAddress(defaultRuntimeDir(paths.profile, options.homeDir), paths.profile, { userSettings: paths.user, cwd: paths.cwd }),
    // The profile directory: where the user settings file is.
    tokenFile: join(dirname(paths.user), GATEWAY_TOKEN_FILE),
    config: configDigest(paths, options, command),
    stopCommand: gatewayStopCommand({ profile: paths.profile, cwd: paths.cwd, ...(options.userSettings === undefined ? {} : { userSettings: paths.user }) }),
  };
  switch (command.action) {
    case 'print-token':
      io.stdout.write(`${await serveToken(target.tokenFile)}\n`);
      return 0;
    case 'stop': {
      const outcome = await stopGateway(target.address);
      io.stderr.write(outcome === 'stopped' ? `mcp-live: stopped the gateway of ${target.cwd}\n` : `mcp-live: no gateway runs for ${target.cwd}\n`);
      return 0;
    }
    case 'stdio':
      return relay(command, target, io);
    case 'run':
    case 'daemon':
      return (await import('./serveGateway.js')).serveGateway(command, options, target, io);
  }
}

/**
 * The command line that ends the gateway of these settings (decision 321): the socket is named
 * by the profile, the user settings file and the workspace, so a hint that leaves one out names
 * another gateway ("no gateway runs"). `userSettings` only when the user gave one; each word
 * shell-quoted, so the line runs as printed.
 */
export function gatewayStopCommand(of: { profile: string; cwd: string; userSettings?: string }): string {
  const settings = of.userSettings === undefined ? [] : ['--user-settings', shellWord(of.userSettings)];
  return ['mcp-live serve --stop --profile', shellWord(of.profile), ...settings, '--cwd', shellWord(of.cwd)].join(' ');
}

/**
 * The options a gateway's live set depends on besides the profile and workspace (which name its
 * socket): a client started with other ones must not silently get this gateway's servers. The
 * names are part of it (`--names`: a client must find the tools under the names it was started
 * for, decision 225); `--restart-on-change` is not: it is what the client's own relay does
 * (decision 228).
 */
function configDigest(paths: ReturnType<typeof settingsPaths>, options: McpLiveOptions, command: ServeCommand): string {
  const shape: unknown[] = [paths.system ?? null, paths.cli, paths.lspCli, options.allowedMcpServerNames ?? null, paths.approvals, options.strategy ?? 'incremental', command.names];
  // Appended only when given, so a gateway without it keeps the digest it had (decision 219).
  if (command.progressive !== undefined) shape.push({ progressive: command.progressive });
  return createHash('sha256').update(JSON.stringify(shape)).digest('hex').slice(0, 16);
}

async function relay(command: ServeCommand, target: ServeTarget, io: ServeIo): Promise<number> {
  const socket = await attachToGateway(target.address, { script: CLI_SCRIPT, args: daemonArgs(command) });
  const running = await readGatewayRecord(target.address.record);
  if (running && running.config !== target.config) {
    socket.destroy();
    throw new Error(
      `the gateway of ${target.cwd} (pid ${running.pid}) runs with other options than these; ` +
        `end it with ${target.stopCommand} to start one with them`,
    );
  }
  const end = await relayStdio(socket, io.stdin, io.stdout, command.restartOnChange ? { restartOnChange: { quietMs: RESTART_QUIET_MS } } : {});
  if (end === 'restarted') {
    // The client is told on stdout's end; this is for its log (decision 226).
    io.stderr.write("mcp-live: the gateway's lists changed; ending this session so the client reconnects and lists them again (--restart-on-change)\n");
  }
  return 0;
}

/** `serve --daemon` with the client's options, every path absolute (the daemon's directory is not the client's concern). */
function daemonArgs(command: ServeCommand): string[] {
  const o = command.options;
  const file = (flag: string, path: string | undefined): string[] => (path === undefined ? [] : [flag, resolve(path)]);
  return [
    'serve',
    '--daemon',
    '--cwd',
    resolve(o.cwd),
    '--profile',
    o.profile,
    ...file('--user-settings', o.userSettings),
    ...file('--system-settings', o.systemSettings),
    ...o.mcpConfig.flatMap((path) => file('--mcp-config', path)),
    ...o.lspConfig.flatMap((path) => file('--lsp-config', path)),
    ...(o.allowedMcpServerNames === undefined ? [] : ['--allowed-mcp-server-names', o.allowedMcpServerNames.join(',')]),
    ...file('--approvals-file', o.approvalsFile),
    ...(o.debounceMs === undefined ? [] : ['--debounce', String(o.debounceMs)]),
    '--reconcile',
    o.strategy,
    '--names',
    command.names,
    ...(command.progressive === undefined ? [] : [`--progressive=${command.progressive}`]),
    ...(command.port === undefined ? [] : ['--port', String(command.port)]),
    ...(command.lingerMs === undefined ? [] : ['--linger-ms', String(command.lingerMs)]),
  ];
}
