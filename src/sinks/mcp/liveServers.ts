import { asyncScheduler, type Observable, type SchedulerLike } from 'rxjs';
import type { Connector, ServerRequestHandlers } from '../../model/connection.js';
import type { HintAudience } from '../../model/report/messages.js';
import { InFlight } from './liveEntries.js';
import { RequestRouter } from './requestRouter.js';
import { ServerLifecycle } from './serverLifecycle.js';
import { StatusBoard } from './statusBoard.js';
import { ToolCatalog, type SurfaceObserver } from './toolCatalog.js';

/** Dependencies of {@link createLiveServers}; everything that touches time or processes is injected. */
export interface LiveServersDeps {
  connector: Connector;
  scheduler?: SchedulerLike;
  /** Restarts in a row after which a dead server stays in `error` until the next pass. */
  maxFailures?: number;
  /** Jitter source for the backoff (tests pin it). */
  random?: () => number;
  /** A connection that stayed up this long resets the failure count (default: the 30 s cap). */
  stableAfterMs?: number;
  /** How many history lines each server keeps. */
  historyLimit?: number;
  /**
   * With a shared pool: restarts the pooled connection of a fingerprint for every session
   * (`ConnectionPool.restart`), so `/reconnect NAME` starts a fresh process instead of
   * re-attaching to the one other sessions hold. Completes when the old process is gone.
   */
  restartShared?: (fingerprint: string) => Observable<void> | undefined;
  /** Who reads the fix hints of tool-not-found messages (default `library`). */
  hints?: HintAudience;
  /** How this session answers its servers' own requests (elicitation, sampling, roots). */
  handlers?: ServerRequestHandlers;
  /**
   * The surface record (decisions 195, 197): told every surface a connected MCP server shows,
   * it answers with the tools to withhold (changed since the user approved them).
   */
  surfaces?: SurfaceObserver;
}

/**
 * The live side of the reconcile table, in four parts (decision 340): every server's connection
 * from connect to close (`lifecycle`), the requests routed to them (`requests`), the names and
 * filters of what they offer (`catalog`), and their statuses and when those are published (`board`).
 */
export interface LiveServers {
  readonly lifecycle: ServerLifecycle;
  readonly requests: RequestRouter;
  readonly catalog: ToolCatalog;
  readonly board: StatusBoard;
  /** Ends every connection and resolves when every process is gone; then the last statuses are published. */
  dispose(): Promise<void>;
}

/**
 * Wires the four parts: the board keeps the entries and hands them read-only to the others, each
 * part gets only the parts it calls (catalog → board, requests → catalog, lifecycle → board and
 * catalog), and the requests in flight are counted where the lifecycle waits for them.
 */
export function createLiveServers(deps: LiveServersDeps): LiveServers {
  const scheduler = deps.scheduler ?? asyncScheduler;
  const board = new StatusBoard({ scheduler, historyLimit: deps.historyLimit ?? 20 });
  const { entries } = board;
  const catalog = new ToolCatalog({ entries, board, surfaces: deps.surfaces });
  const inFlight = new InFlight();
  const requests = new RequestRouter({ entries, catalog, inFlight, hints: deps.hints });
  const lifecycle = new ServerLifecycle({
    connector: deps.connector,
    scheduler,
    maxFailures: deps.maxFailures ?? 5,
    random: deps.random ?? Math.random,
    stableAfterMs: deps.stableAfterMs ?? 30_000,
    restartShared: deps.restartShared,
    hints: deps.hints,
    handlers: deps.handlers,
    board,
    catalog,
    inFlight,
  });
  return {
    lifecycle,
    requests,
    catalog,
    board,
    async dispose() {
      await lifecycle.dispose();
      board.end();
    },
  };
}
