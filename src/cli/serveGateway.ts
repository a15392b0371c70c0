import type { Socket } from 'node:net';
import { distinctUntilChanged, firstValueFrom, map, NEVER, switchMap, timer, type Observable } from 'rxjs';
import { createMcpLive } from '../live/createMcpLive.js';
import { type McpLiveOptions } from '../live/types.js';
import type { GatewayListeningEvent, McpLiveEvent } from '../model/report/events.js';
import { clientEvents } from '../operators/clientEvents.js';
import { DEFAULT_IDLE_GRACE_MS } from '../sinks/mcp/connectionPool.js';
import { createGateway, type Gateway } from '../hosts/gateway/gateway.js';
import { serveToken } from '../hosts/gateway/gatewayToken.js';
import { listenHttp, type HttpEndpoint } from '../hosts/gateway/httpEndpoint.js';
import { claimGatewaySocket, type GatewayAddress } from '../hosts/gateway/localSocket.js';
import { SocketServerTransport } from '../hosts/gateway/socketTransport.js';
import { ndjsonWriter } from '../sinks/ndjsonWriter.js';
import { capLogWhileRunning } from '../platform/logRotation.js';
import { eventLogText } from '../hosts/ui/text/eventLogLine.js';
import { DEFAULT_GATEWAY_PORT, type ServeCommand } from './args.js';
import { packageVersion } from './ownPackage.js';
import { runJsonSession } from './runJsonSession.js';
import { terminalSafe } from '../model/terminalText.js';

/** The streams of the `serve` command. */
export interface ServeIo {
  stdin: NodeJS.ReadableStream;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

/** Where one workspace's gateway lives, and the options it must have been started with. */
export interface ServeTarget {
  cwd: string;
  address: GatewayAddress;
  tokenFile: string;
  config: string;
  /** The command line that ends this gateway, every flag that names it included (decision 321). */
  stopCommand: string;
}

/**
 * The gateway side of `mcp-live serve`, loaded only where a gateway runs: a relay
 * (`serve --stdio` with a gateway running) starts without the session's modules.
 */

const SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/**
 * The gateway itself: takes the socket first (a daemon that loses the race to another exits
 * before it has started a server), then HTTP, then the session. Ends on SIGINT, SIGTERM, SIGHUP
 * (and `quit` with --json, the UI's exit with --ui); a daemon also after `lingerMs` without a
 * client. Every way out closes the clients' sessions and ends the servers.
 */
export async function serveGateway(command: ServeCommand, options: McpLiveOptions, target: ServeTarget, io: ServeIo): Promise<number> {
  const gateway = createGateway((hooks) => createMcpLive({ ...options, ...hooks, hints: 'json' }), {
    names: command.names,
    ...(command.progressive === undefined ? {} : { progressive: command.progressive }),
    serverInfo: { name: 'mcp-live', version: packageVersion() },
  });
  // A relay's client may speak either era: the connection's opening decides (decision 387).
  const attach = (socket: Socket): void => void gateway.serveConnection(new SocketServerTransport(socket), 'socket');
  const claim = await claimGatewaySocket(target.address, { cwd: target.cwd, config: target.config }, attach);
  if (!claim.ok) {
    await gateway.close();
    await gateway.live.dispose();
    // A daemon that lost the race: the clients attach to the winner.
    if (command.action === 'daemon') return 0;
    const pid = claim.running === undefined ? '' : ` (pid ${claim.running.pid})`;
    throw new Error(`a gateway for ${target.cwd} is already running${pid}: clients attach to it with serve --stdio; end it with ${target.stopCommand}`);
  }
  const port = command.action === 'run' ? (command.port ?? DEFAULT_GATEWAY_PORT) : command.port;
  let http: HttpEndpoint | undefined;
  // A daemon's stdout and stderr are its log: kept to 1 MiB and one older generation (decision 284).
  const stopCappingLog = command.action === 'daemon' ? capLogWhileRunning(target.address.log) : undefined;
  try {
    if (port !== undefined) http = await listenHttp(gateway, { port, token: await serveToken(target.tokenFile) });
    const listening: GatewayListeningEvent = {
      type: 'gateway-listening',
      ...(http === undefined ? {} : { url: http.url }),
      socket: claim.socket.path,
      ts: Date.now(),
    };
    // `/trust` in the `--ui` session (decision 304): the same write as `mcp-live trust`.
    const trustFolder = async (): Promise<string> => (await import('./trustCommand.js')).trustSessionFolder(options, gateway.live.cwd);
    return await runSession(command, gateway, listening, io, trustFolder);
  } finally {
    stopCappingLog?.();
    await claim.socket.close();
    await http?.close();
    await gateway.close();
    // The --json and --ui sessions have disposed it already; dispose() is safe to call again.
    await gateway.live.dispose();
  }
}

function runSession(command: ServeCommand, gateway: Gateway, listening: GatewayListeningEvent, io: ServeIo, trustFolder: () => Promise<string>): Promise<number> {
  if (command.json) return runJson(gateway, listening, io);
  if (command.ui) {
    io.stderr.write(`${listeningText(listening)}\n`);
    // As for `mcp-live` in a terminal (main.ts): Ink reads CI when first imported, just below.
    if (process.stdin.isTTY) {
      delete process.env.CI;
      delete process.env.CONTINUOUS_INTEGRATION;
    }
    return import('./runInteractive.js').then(({ runInteractive }) => runInteractive(gateway.live, {}, trustFolder));
  }
  if (command.action === 'daemon') {
    // The daemon's stdout is its log: the session's events, as --json writes them.
    const write = ndjsonWriter(io.stdout);
    return runUntilStopped(gateway, listening, write, lastClientGone(gateway.clients$, command.lingerMs ?? DEFAULT_IDLE_GRACE_MS));
  }
  const write = (event: McpLiveEvent): void => {
    const text = gatewayEventText(event) ?? eventLogText(event)?.text;
    // Terminal-safe (decision 164): names, errors and client names are not ours.
    if (text !== undefined) io.stderr.write(`mcp-live: ${terminalSafe(text, { multiline: true, indent: '  ' })}\n`);
  };
  return runUntilStopped(gateway, listening, write, NEVER_SETTLES);
}

/** `serve --json`: the `--json` session of the gateway's McpLive, with the gateway's own events. */
async function runJson(gateway: Gateway, listening: GatewayListeningEvent, io: ServeIo): Promise<number> {
  const write = ndjsonWriter(io.stdout);
  write(listening);
  const clients = gateway.clients$.pipe(clientEvents()).subscribe((event) => write(event));
  // runJsonSession ends on SIGINT and SIGTERM; a gateway also on SIGHUP (its terminal closed).
  const hangUp = (): void => void process.kill(process.pid, 'SIGTERM');
  process.on('SIGHUP', hangUp);
  try {
    return await runJsonSession(gateway.live, io);
  } finally {
    process.removeListener('SIGHUP', hangUp);
    clients.unsubscribe();
  }
}

const NEVER_SETTLES = new Promise<void>(() => undefined);

/** Runs the session until a signal (or `idle`); 1 when it could not start. */
async function runUntilStopped(
  gateway: Gateway,
  listening: GatewayListeningEvent,
  write: (event: McpLiveEvent) => void,
  idle: Promise<void>,
): Promise<number> {
  write(listening);
  const events = gateway.live.events$.subscribe((event) => write(event));
  events.add(gateway.clients$.pipe(clientEvents()).subscribe((event) => write(event)));
  let stop!: () => void;
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  // `on`, not `once`: signal-exit (write-file-atomic) re-raises a signal no listener is left for.
  for (const signal of SIGNALS) process.on(signal, stop);
  try {
    const started = gateway.live.start().then(
      () => NEVER_SETTLES.then(() => 0),
      (error: unknown) => {
        write({ type: 'log', level: 'error', message: `the session did not start: ${error instanceof Error ? error.message : String(error)}`, ts: Date.now() });
        return 1;
      },
    );
    return await Promise.race([started, stopped.then(() => 0), idle.then(() => 0)]);
  } finally {
    for (const signal of SIGNALS) process.removeListener(signal, stop);
    events.unsubscribe();
  }
}

/** Settles once the gateway has had no client for `lingerMs` (counted from the start too: a client that never came). */
function lastClientGone(clients$: Observable<readonly unknown[]>, lingerMs: number): Promise<void> {
  return firstValueFrom(
    clients$.pipe(
      map((clients) => clients.length === 0),
      distinctUntilChanged(),
      switchMap((idle) => (idle ? timer(lingerMs) : NEVER)),
      map(() => undefined),
    ),
    { defaultValue: undefined },
  );
}

/** The gateway's own events in the words of the foreground gateway's stderr. */
function gatewayEventText(event: McpLiveEvent): string | undefined {
  switch (event.type) {
    case 'gateway-listening':
      return listeningText(event);
    case 'client-connected':
    case 'client-disconnected': {
      const who = `${event.clientName ?? 'a client'} (${event.transport})`;
      return `${who} ${event.type === 'client-connected' ? 'connected' : 'left'}; ${event.clients} connected`;
    }
    default:
      return undefined;
  }
}

function listeningText(event: GatewayListeningEvent): string {
  return `gateway listening on ${event.url === undefined ? '' : `${event.url} and `}${event.socket}`;
}
