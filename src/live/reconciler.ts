import {
  BehaviorSubject,
  EMPTY,
  Observable,
  Subject,
  asyncScheduler,
  concat,
  defer,
  distinctUntilChanged,
  from,
  map,
  merge,
  of,
  shareReplay,
  takeUntil,
  tap,
  timer,
  finalize,
  catchError,
  ignoreElements,
  mergeMap,
  withLatestFrom,
  type SchedulerLike,
  type Subscription,
} from 'rxjs';
import type { AssembleInput } from '../model/settings/assemble.js';
import { approvalHash, approvedForAnotherHash } from '../model/settings/approvalHash.js';
import { entryChanges } from '../model/admission/entryChanges.js';
import { markWrittenByRepository } from '../model/settings/secrets.js';
import { reviewEntry } from '../model/admission/reviewEntry.js';
import type { Connector } from '../model/connection.js';
import { desiredStateEqual } from '../model/reconcile/equality.js';
import type {
  ApprovalRequiredEvent,
  SurfaceChangedEvent,
  LogEvent,
  McpLiveEvent,
  ReadyEvent,
  ReconcileEvent,
  ServerEvent,
  Trigger,
} from '../model/report/events.js';
import { createIncrementalDesired, type IncrementalDesired } from '../model/reconcile/incrementalDesired.js';
import { createIncrementalPlan } from '../model/reconcile/incrementalPlan.js';
import { serverKind } from '../model/serverKeys.js';
import { keptRunning, type Action, type Blocked, type PlanStep, type WantedServer } from '../model/reconcile/plan.js';
import { planFullRestart } from '../model/reconcile/planFullRestart.js';
import type { PendingApproval, ServerStatus } from '../model/report/status.js';
import { GATED_SCOPES, type DesiredState, type ResolvedServerConfig } from '../model/types.js';
import { distinctUntilChangedUnless } from '../operators/distinctUntilChangedUnless.js';
import { exhaustMapWithTrailing } from '../operators/exhaustMapWithTrailing.js';
import { reconcileByServer, type ServerTask } from '../operators/reconcileByServer.js';
import { yieldEvery } from '../operators/yieldEvery.js';
import { settleOnActivity, type ReadActivity } from '../operators/settleOnActivity.js';
import { createLiveServers, type LiveServersDeps } from '../sinks/mcp/liveServers.js';
import type { RequestRouter } from '../sinks/mcp/requestRouter.js';
import type { StatusView } from '../sinks/mcp/statusBoard.js';
import { SurfacePins, type ApprovalMarks, type SurfaceApproval } from '../sinks/mcp/surfacePins.js';
import type { SurfaceStore } from '../sinks/stores/surfaceStore.js';
import { memoryPinStore, type PinStore } from '../sinks/stores/pinStore.js';

/** Options of the reconcile pipeline; everything with a side effect or a clock is injected. */
export interface ReconcilerDeps {
  connector: Connector;
  /** `--allowed-mcp-server-names`: an upper bound settings can only narrow, fixed for the life of the process. */
  allowedMcpServerNames?: readonly string[];
  /** The environment `$VAR` expands from (default `process.env`). */
  env?: Record<string, string | undefined>;
  /** The workspace: stdio servers start in it (or in their `cwd` resolved against it). */
  cwd?: string;
  /** The session's home directory: a non-gated server's `headersHelper` runs in it (decision 299). */
  home?: string;
  /** Time (default RxJS's `asyncScheduler`): a test runs the pipeline in virtual time. */
  scheduler?: SchedulerLike;
  /** How long a burst of file events settles before a pass (default 300 ms). */
  debounceMs?: number;
  /**
   * What the watchers of `inputs$` saw and the reads they caused (`fromAllSources`' `onActivity`):
   * the debounce window opens at the first change seen, not when its read comes back (decision 105).
   * Without it every input is a change of its own (`settle`).
   */
  activity$?: Observable<ReadActivity>;
  /** Servers acted on at once within a pass (default 8). */
  concurrency?: number;
  /**
   * The incremental assembly, shared with a host that assembles the latest inputs itself
   * (`createMcpLive`): one memory of every entry, not two (decision 171). Default: its own.
   */
  assembly?: IncrementalDesired;
  /**
   * `incremental` (default) touches only what changed; `full` tears every server down and
   * connects all again on any change — the old behaviour, kept for comparison and benchmarks.
   */
  strategy?: 'incremental' | 'full';
  maxFailures?: number;
  random?: () => number;
  /** With a shared pool (`ConnectionPool.restart`): `/reconnect NAME` restarts the shared process. */
  restartShared?: LiveServersDeps['restartShared'];
  /**
   * Where fix hints are read, so they name a step that works there: `ui` (a terminal UI with
   * `/mcp`), `json` (the `--json` command protocol), `library` (default: a shell command).
   */
  hints?: LiveServersDeps['hints'];
  /** How the session answers its servers' own requests (elicitation, sampling, roots). */
  handlers?: LiveServersDeps['handlers'];
  /**
   * The surface record (decisions 195, 197): every surface a server shows is recorded and
   * compared with it — `surface-changed`, and a gated server's changed tools withheld until the
   * user approves them. Without it nothing is recorded or withheld.
   */
  surfaces?: SurfaceStore;
  /** The pins (decision 307), beside `surfaces` (default: kept in memory for the session). */
  pins?: PinStore;
  /** The approvals' pin markers (decision 309); without them a missing pin is a first sight. */
  approvalMarks?: ApprovalMarks;
}

/** A request for a pass: what to apply and why. Manual requests bypass the equality gate. */
export interface PassRequest {
  desired: DesiredState;
  trigger: Trigger;
  manual: boolean;
  /** The decisions the pass was assembled with: whether a pending entry was approved before (decision 331). */
  approvals?: Pick<AssembleInput, 'approvals' | 'sessionApprovals'>;
}

/** What a finished pass reports. */
export interface PassResult {
  event: ReconcileEvent;
  desired: DesiredState;
  /** A newer request arrived before the pass was done: it stopped waiting (decision 17). */
  superseded: boolean;
}

/**
 * The running pipeline: observables for the UI and the NDJSON writer, plus its controls. The live
 * servers' statuses and requests are its parts, not members of its own (decision 342).
 */
export interface Reconciler {
  /** Every server's status (`servers$`, `changes$`, `tools$`, `list`, `status`, `stderrTail`): read, never written, here. */
  readonly board: StatusView;
  /** Tool calls, prompts, resources and completions, routed to the server that lists them. */
  readonly requests: RequestRouter;
  /** The promptable set (gated servers strictly pending), emitted when a pass changed it (once its blocks are applied). */
  readonly pendingApprovals$: Observable<readonly PendingApproval[]>;
  readonly events$: Observable<McpLiveEvent>;
  /** Subscribes the pipeline (the one root subscription). Idempotent. */
  start(): void;
  /** Requests a pass now with the latest inputs, bypassing debounce and the equality gate. */
  reload(trigger?: Trigger): void;
  /** `/reconnect NAME`: the next pass (started now) reconnects it. */
  reconnect(name: string): boolean;
  /** `name`'s config as the last pass admitted it: undefined while it is blocked, pending or gone. */
  resolvedConfig(name: string): ResolvedServerConfig | undefined;
  /**
   * The approval hash of `name`'s entry as the latest pass showed it (its promptable set and
   * server list), or undefined when that pass had no such server. Never a newer read.
   */
  shownHash(name: string): string | undefined;
  /** A decision was refused because the entry changed: run a pass that asks again, whatever changed. */
  reprompt(): void;
  /** The changed surface `name` waits with for a decision (decision 197), if any. */
  surfaceWaiting(name: string): SurfaceApproval | undefined;
  /** Approves the surface shown with `hash`: its tools are offered at once. False when another one waits now. */
  approveSurface(name: string, hash: string): boolean;
  /** Rejects the surface shown with `hash`: its changed tools stay withheld, it is not asked again this session. */
  rejectSurface(name: string, hash: string): boolean;
  /** Starts an idle server's process now (decision 196); undefined when it is not idle. */
  wake(name: string): Promise<void> | undefined;
  /**
   * Resolves once the first pass has applied its blocks and published its promptable set (a hung
   * connect does not hold this back, unlike `ready`); rejects when disposed before.
   */
  planned(): Promise<void>;
  dispose(): Promise<void>;
}

/**
 * The reactive core:
 *
 * ```
 * inputs$ ──settleOnActivity(activity$, 300)──map(assemble)──┐
 * manual$ ──withLatestFrom(inputs$)───────────────────────────┴─merge─distinctUntilChangedUnless(desiredStateEqual, manual)
 *   ──exhaustMapWithTrailing(pass)──▶ PassResult
 * pass = plan(desired, live) → tasks → reconcileByServer(8) ─takeUntil(superseded$)→ ReconcileEvent
 * ```
 * A pass waits for its actions (connects settled, closed processes gone) unless a newer request
 * reaches the gate meanwhile: then it stops waiting, reports, and the next pass starts at once.
 */
export function createReconciler(inputs$: Observable<AssembleInput>, deps: ReconcilerDeps): Reconciler {
  const scheduler = deps.scheduler ?? asyncScheduler;
  const env = deps.env ?? process.env;
  const pins =
    deps.surfaces === undefined
      ? undefined
      : new SurfacePins({
          store: deps.surfaces,
          // Bound to the entry as the latest pass showed it, as a config approval is.
          configHash: (name) => {
            const config = shown?.servers[name]?.config;
            return config === undefined ? undefined : desiredState.hashOf(config);
          },
          pins: deps.pins ?? memoryPinStore(),
          ...(deps.approvalMarks === undefined ? {} : { marks: deps.approvalMarks }),
          reobserve: (name) => live.catalog.reobserve(name),
          strict: () => shown?.gating.pinTools === 'strict',
          onChanged: (server, changes, withheld) =>
            events.next(
              stamp<SurfaceChangedEvent>({ type: 'surface-changed', server, changes: [...changes], ...(withheld.length > 0 ? { withheld: [...withheld] } : {}) }),
            ),
          now: () => Date.now(),
        });
  const live = createLiveServers({
    surfaces: pins,
    connector: deps.connector,
    scheduler,
    maxFailures: deps.maxFailures,
    random: deps.random,
    restartShared: deps.restartShared,
    hints: deps.hints,
    handlers: deps.handlers,
  });
  // Per-source and per-entry results kept between passes: a pass costs what changed (decision 102).
  const desiredState = deps.assembly ?? createIncrementalDesired();
  // …and the plan: only names whose outcome or live entry changed are planned again.
  const planner = createIncrementalPlan();
  /** Names whose live entry changed since the last plan (every status change, and `/reconnect`). */
  const liveDirty = new Set<string>();
  /**
   * The names pending approval now, kept per change: a pass's promptable set costs its size,
   * not a scan of every server (decision 171).
   */
  const pendingNames = new Set<string>();
  const watchingLive = live.board.changes$.subscribe((status) => {
    liveDirty.add(status.name);
    if (status.reason === 'pending_approval') pendingNames.add(status.name);
    else pendingNames.delete(status.name);
  });
  /** After a pass that was cut short or failed, the next one plans every name again. */
  let planEverything = true;
  /** The configured names last handed to `setConfiguredNames`, and whether that pass changed them. */
  let configuredNames: readonly string[] | undefined;
  let configuredChanged = false;
  const manual = new Subject<Trigger>();
  const events = new Subject<McpLiveEvent>();
  const pending = new BehaviorSubject<readonly PendingApproval[]>([]);
  let subscription: Subscription | undefined;
  let generation = 0;
  let lastPromptable: readonly PendingApproval[] = [];
  /** The desired state whose promptable set was last published: what the user was shown. */
  let shown: DesiredState | undefined;
  let markPlanned!: () => void;
  let failPlanned!: (error: Error) => void;
  const planned = new Promise<void>((resolve, reject) => {
    markPlanned = resolve;
    failPlanned = reject;
  });
  planned.catch(() => undefined); // nobody need wait for it
  let ready = false;

  const stamp = <E extends McpLiveEvent>(e: Omit<E, 'ts'>): E => ({ ...e, ts: scheduler.now() }) as E;

  const runPass = (req: PassRequest, _index: number, superseded$: Observable<void>): Observable<PassResult> =>
    // A large pass starts in a task of its own, after its assembly's: a signal waiting meanwhile
    // is handled between them (decision 174). A small one starts at once, as it always did.
    concat(Object.keys(req.desired.servers).length > PASS_CHUNK ? timer(0, scheduler).pipe(ignoreElements()) : EMPTY, defer(() => {
      const started = scheduler.now();
      generation += 1;
      const pass = generation;
      const { wanted, blocked, names, changed } = desiredState.desiredServers(req.desired, deps.allowedMcpServerNames, env, deps.cwd, deps.home);
      const everything = planEverything || changed === 'all' || deps.strategy === 'full';
      for (const name of everything ? Object.keys(wanted) : changed) {
        const s = wanted[name];
        if (s) live.lifecycle.describe(s.name, s.scope, s.source);
        // A gated entry let through is one the user approved: what an edit of it is shown against.
        if (s && GATED_SCOPES.has(s.scope)) approvedEntries.set(name, req.desired.servers[name]?.config);
      }
      // Tool names unique across every configured server (decision 57); a new collision is a
      // warning. Only when the names changed — or did in the pass before, whose call kept the
      // part of a removed server that still had tools (its disconnect was coming).
      const namesChanged = names !== configuredNames;
      if (namesChanged || configuredChanged || everything) {
        // Language servers list no MCP tools: their keys take no part in tool names.
        const mcpNames = names.filter((name) => serverKind(name) === 'mcp');
        for (const message of live.catalog.setConfiguredNames(mcpNames)) events.next(stamp<LogEvent>({ type: 'log', level: 'warn', message }));
      }
      configuredNames = names;
      configuredChanged = namesChanged;
      const full = deps.strategy === 'full';
      const dirty = everything ? 'all' : new Set([...changed, ...liveDirty]);
      liveDirty.clear();
      planEverything = false;
      const { steps, unchanged, kept: keptRunningCount } = full
        ? countUnchanged(planFullRestart(wanted, blocked, live.board.snapshot()), wanted, blocked)
        : planner.plan(wanted, blocked, names, dirty, (only) => live.board.snapshot(only));
      // The plan is the set (decision 325): every server this pass connects is known before the
      // plan is announced — one waiting for a connect slot as `connecting` — never missing.
      const expecting = live.board.hold();
      for (const step of steps) for (const action of step.actions) if (action.type === 'connect') live.lifecycle.expect(action.server);
      expecting.unsubscribe();
      const tasks = (which: PlanStep[], only: (a: Action) => boolean) =>
        from(
          which.flatMap((step) =>
            step.actions.filter(only).map(
              (action): ServerTask<never> => ({ name: step.name, run: () => execute(step.name, action, req.desired) }),
            ),
          ),
        );
      // Blocks and removals never queue for a slot: a kill switch must not wait behind slow
      // connects. Once they are applied the promptable set is known, so the user is asked at
      // once — a hung connect of another server must not hold back an approval prompt.
      const run = (only: (a: Action) => boolean) =>
        merge(
          concat(
            // In chunks: 20,000 blocks at once would hold the event loop (and a SIGTERM) for seconds;
            // their statuses are published together, at the announce. Held only while the blocks are
            // handed out: a close that then waits for its process (seconds, for one that ignores
            // SIGTERM) publishes its states as they come.
            defer(() => {
              const held = live.board.hold();
              return tasks(steps.filter(denies), only).pipe(
                yieldEvery(PASS_CHUNK, scheduler),
                finalize(() => held.unsubscribe()),
                reconcileByServer<never>(Infinity),
              );
            }),
            defer(() => {
              announce(req.desired, req.approvals);
              return EMPTY;
            }),
          ),
          tasks(steps.filter((s) => !denies(s)), only).pipe(reconcileByServer<never>(deps.concurrency ?? 8)),
        ).pipe(ignoreElements());
      // A full restart tears everything down before it connects anything.
      const phases = full
        ? [run((a) => a.type === 'disconnect'), run((a) => a.type !== 'disconnect')]
        : [run(() => true)];
      // Connects an earlier, superseded pass started and this one keeps: waited for too, so a
      // reconcile event still follows the server events of every connect its state wants.
      const kept = steps.filter((s) => s.change === 'unchanged' || s.change === 'updated').map((s) => live.lifecycle.settled(s.name));
      // A newer desired state ends the wait (a hung connect must not hold it back): what this pass
      // started goes on in the live servers' lifecycle, and the next pass plans against it — keeps a connect the
      // newer state still wants, disconnects (aborts) one it does not.
      let superseded = false;
      const notified$ = superseded$.pipe(tap(() => (superseded = true)));
      return concat(
        merge(concat(...phases), ...kept).pipe(takeUntil(notified$)),
        defer(() => of(passResult(pass, req, steps, { unchanged, kept: keptRunningCount }, scheduler.now() - started, superseded))),
      );
    })).pipe(
      // A pass never kills the stream: whatever slipped through becomes a log line.
      catchError((err: unknown) => {
        planEverything = true;
        events.next(stamp<LogEvent>({ type: 'log', level: 'error', message: `reconcile failed: ${String(err)}` }));
        return EMPTY;
      }),
    );

  /** One planned action as an observable that completes when it is done; failures are values. */
  const execute = (name: string, action: Action, desired: DesiredState): Observable<never> => {
    switch (action.type) {
      case 'connect':
        return live.lifecycle.connect(action.server);
      case 'disconnect':
        return live.lifecycle.disconnect(name);
      case 'replace':
        return live.lifecycle.replace(action.server);
      case 'refilter':
        return live.lifecycle.refilter(action.server);
      case 'block': {
        const assembled = desired.servers[name];
        const known = live.board.status(name);
        const { type: _type, ...why } = action;
        return live.lifecycle.block(name, assembled?.scope ?? known?.scope ?? 'user', assembled?.source ?? known?.source ?? '', why);
      }
    }
  };

  const passResult = (pass: number, req: PassRequest, steps: PlanStep[], counts: { unchanged: number; kept: number }, ms: number, superseded: boolean): PassResult => {
    if (superseded) planEverything = true;
    const names = (change: PlanStep['change'] | PlanStep['change'][]) => {
      const wantedChanges = Array.isArray(change) ? change : [change];
      return steps.filter((s) => wantedChanges.includes(s.change)).map((s) => s.name);
    };
    const event = stamp<ReconcileEvent>({
      type: 'reconcile',
      generation: pass,
      trigger: req.trigger,
      added: names('added'),
      removed: names('removed'),
      reconnected: names(['reconnected', 'retried']),
      updated: names('updated'),
      unchanged: counts.unchanged,
      kept: counts.kept,
      blocked: names('blocked'),
      ms,
    });
    return { event, desired: req.desired, superseded };
  };

  /**
   * Publishes the promptable set of a pass once its blocks are applied (and again at its end,
   * which changes nothing unless a superseded pass was cut before): `pendingApprovals$`, and an
   * `approval-required` event when the set (names + hashes) changed and is not empty.
   */
  const announce = (desired: DesiredState, approvals?: PassRequest['approvals']): void => {
    // The pass's statuses so far, in one `servers$` value, before the prompt that follows from them.
    live.board.flush();
    shown = desired;
    markPlanned();
    // Names and hashes first: the reviews are built only when the set changed (this runs twice a pass).
    const waiting = [...pendingNames].map((name) => ({ status: live.board.status(name)!, name, hash: desiredState.hashOf(desired.servers[name]?.config) }));
    if (samePending(lastPromptable, waiting)) return;
    waiting.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const promptable = promptableOf(desired, waiting).map((p) => withEdit(p, desired, approvals));
    lastPromptable = promptable;
    publishPending();
    askFor(promptable);
  };

  /**
   * Gated entries as they were let through this session, by name (decision 331): the entry the
   * user approved, kept in memory only — the approvals file keeps a hash, never an entry.
   */
  const approvedEntries = new Map<string, unknown>();
  /** A pending entry that was approved with other content: what changed, when the approved entry is known. */
  const withEdit = (p: PendingApproval, desired: DesiredState, approvals: PassRequest['approvals']): PendingApproval => {
    const before = approvedEntries.get(p.name);
    const config = desired.servers[p.name]?.config;
    if (before !== undefined && before !== config && desiredState.hashOf(before) !== p.hash) {
      const changes = entryChanges(reviewEntry(before, serverKind(p.name), p.scope).lines, p.review);
      // A gated entry's own text, as its review lines are: the printers' net masks real secrets only in it (decision 167).
      if (GATED_SCOPES.has(p.scope)) for (const change of changes) markWrittenByRepository(change);
      return { ...p, edited: { changes } };
    }
    if (approvals !== undefined && approvedForAnotherHash(p.name, p.hash, approvals.approvals, approvals.sessionApprovals)) return { ...p, edited: {} };
    return p;
  };

  /** The `approval-required` event of entries (or changed surfaces) newly waiting. */
  const askFor = (promptable: readonly PendingApproval[]): void => {
    if (promptable.length === 0) return;
    events.next(
      stamp<ApprovalRequiredEvent>({
        type: 'approval-required',
        servers: promptable.map(({ name, scope, source, hash, config, readsEnv, surface, edited }) => ({
          name,
          scope,
          source,
          hash,
          config,
          readsEnv: [...readsEnv],
          ...(surface === undefined ? {} : { surface: [...surface] }),
          ...(edited === undefined ? {} : { edited: edited.changes === undefined ? {} : { changes: [...edited.changes] } }),
        })),
      }),
    );
  };

  /** Changed surfaces waiting (decision 197), shown like the entries they belong to, with what changed. */
  let surfacePromptable: readonly PendingApproval[] = [];
  const publishPending = (): void => {
    pending.next(surfacePromptable.length === 0 ? lastPromptable : [...lastPromptable, ...surfacePromptable].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)));
  };
  const watchingSurfaces = pins?.pending$.subscribe((waiting) => {
    const before = new Set(surfacePromptable.map((p) => `${p.name}\0${p.hash}`));
    surfacePromptable = waiting.flatMap((w) => {
      const status = live.board.status(w.name);
      if (status === undefined || shown === undefined) return [];
      const [entry] = promptableOf(shown, [{ status, hash: w.hash }]);
      return entry === undefined ? [] : [{ ...entry, surface: w.changes }];
    });
    publishPending();
    askFor(surfacePromptable.filter((p) => !before.has(`${p.name}\0${p.hash}`)));
  });

  const requests$ = (source$: Observable<AssembleInput>): Observable<PassRequest> => {
    // Replayed, so a manual request right after start sees the inputs read at subscription.
    const latest$ = source$.pipe(shareReplay({ bufferSize: 1, refCount: true }));
    let first = true;
    const watched$ = latest$.pipe(
      settleOnActivity<AssembleInput>(deps.activity$ ?? EMPTY, deps.debounceMs ?? 300, scheduler, { firstAtOnce: true }),
      map((input): PassRequest => {
        const trigger: Trigger = first ? 'initial' : 'watch';
        first = false;
        return { desired: desiredState.assemble(input), trigger, manual: false, approvals: input };
      }),
    );
    const manual$ = manual.pipe(
      withLatestFrom(latest$),
      map(([trigger, input]): PassRequest => ({ desired: desiredState.assemble(input), trigger, manual: true, approvals: input })),
    );
    return merge(watched$, manual$);
  };

  return {
    board: live.board,
    requests: live.requests,
    pendingApprovals$: pending.asObservable().pipe(distinctUntilChanged(samePending)),
    events$: events.asObservable(),
    start() {
      if (subscription) return;
      const passes$ = requests$(inputs$).pipe(
        distinctUntilChangedUnless<PassRequest>(
          (a, b) => desiredStateEqual(a.desired, b.desired),
          (r) => r.manual,
        ),
        exhaustMapWithTrailing(runPass),
      );
      subscription = merge(
        live.board.changes$.pipe(map((s) => serverEvent(s, scheduler.now()))),
        passes$.pipe(
          mergeMap((result) => {
            const out: McpLiveEvent[] = [result.event];
            announce(result.desired);
            // Ready once a pass ran to its end: a superseded first pass has not settled anything yet.
            if (!ready && !result.superseded) {
              ready = true;
              out.push(stamp<ReadyEvent>({ type: 'ready' }));
            }
            return out;
          }),
        ),
      ).subscribe(events);
    },
    reload(trigger: Trigger = 'reload') {
      if (subscription) manual.next(trigger);
    },
    reconnect(name: string) {
      const marked = live.lifecycle.markForReconnect(name);
      if (marked) liveDirty.add(name);
      if (marked) this.reload('reconnect');
      return marked;
    },
    resolvedConfig: (name) => live.lifecycle.wanted(name)?.resolved,
    shownHash(name) {
      const server = shown?.servers[name];
      return server === undefined ? undefined : approvalHash(server.config);
    },
    reprompt() {
      lastPromptable = [];
      this.reload('approval');
    },
    surfaceWaiting: (name) => pins?.waitingFor(name),
    approveSurface(name, hash) {
      if (pins?.approve(name, hash) !== true) return false;
      live.catalog.reobserve(name);
      return true;
    },
    rejectSurface: (name, hash) => pins?.reject(name, hash) === true,
    wake: (name) => live.lifecycle.wake(name),
    planned: () => planned,
    async dispose() {
      subscription?.unsubscribe();
      subscription = undefined;
      watchingLive.unsubscribe();
      watchingSurfaces?.unsubscribe();
      pins?.dispose();
      failPlanned(new Error('disposed before its first pass'));
      await live.dispose();
      manual.complete();
      pending.complete();
      events.complete();
    },
  };
}

/** How many servers a pass handles in one event-loop task (decision 174). */
const PASS_CHUNK = 1_000;

/** The promptable set: gated servers whose only obstacle is a missing decision, with what to show. */
function promptableOf(
  desired: DesiredState,
  waiting: readonly { status: ServerStatus; hash: string }[],
): PendingApproval[] {
  return waiting.map(({ status: s, hash }) => {
    const { config, readsEnv, target, lines } = reviewEntry(desired.servers[s.name]?.config, serverKind(s.name), s.scope);
    return { name: s.name, scope: s.scope, source: s.source, target, hash, config, readsEnv, review: lines };
  });
}

/** A step that takes a server down (blocked or removed): it runs first and needs no slot. */
function denies(step: PlanStep): boolean {
  return step.change === 'blocked' || step.change === 'removed';
}

/** Whether two sets are the same names with the same approval hashes. */
function samePending<T extends { name: string; hash: string }>(a: readonly T[], b: readonly { name: string; hash: string }[]): boolean {
  if (a.length !== b.length) return false;
  const keys = new Set(a.map((p) => `${p.name}\0${p.hash}`));
  return b.every((p) => keys.has(`${p.name}\0${p.hash}`));
}

/** The NDJSON `server` event of a status: names only, never config values. */
export function serverEvent(s: ServerStatus, ts: number): ServerEvent {
  const e: ServerEvent = { type: 'server', ts, name: s.name, kind: s.kind ?? 'mcp', scope: s.scope, source: s.source, state: s.state };
  if (s.reason !== undefined) e.reason = s.reason;
  if (s.detail !== undefined) e.detail = s.detail;
  if (s.pid !== undefined) e.pid = s.pid;
  if (s.state === 'connected' && s.kind === 'lsp') {
    e.languages = [...(s.languages ?? [])];
    e.capabilities = [...(s.capabilities ?? [])];
  } else if (s.state === 'connected' || s.state === 'idle') {
    e.tools = s.tools.map((t) => t.name);
    e.prompts = s.prompts.map((p) => p.name);
    if (s.protocolVersion !== undefined) e.protocolVersion = s.protocolVersion;
    if (s.era !== undefined) e.era = s.era;
  }
  if (s.error !== undefined) e.error = s.error;
  return e;
}

/** A whole plan, how many of its steps change nothing, and how many of those leave a server running (the reconcile event's counts). */
function countUnchanged(
  steps: PlanStep[],
  wanted: Readonly<Record<string, WantedServer>>,
  blocked: Readonly<Record<string, Blocked>>,
): { steps: PlanStep[]; unchanged: number; kept: number } {
  return { steps, unchanged: steps.filter((s) => s.change === 'unchanged').length, kept: steps.filter((s) => keptRunning(s, wanted, blocked)).length };
}
