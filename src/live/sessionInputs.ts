import { Subject, tap, type Observable, type Observer } from 'rxjs';
import { allowedNamesWarning } from '../model/settings/allowedNamesWarning.js';
import type { AssembleInput } from '../model/settings/assemble.js';
import { createIncrementalDesired, type IncrementalDesired } from '../model/reconcile/incrementalDesired.js';
import type { ApprovalsRead, ApprovalsStore, DesiredState } from '../model/types.js';
import type { ReadActivity } from '../operators/settleOnActivity.js';
import { withSessionEnablement } from '../operators/withSessionEnablement.js';
import { systemPathKeys } from '../platform/systemPathKeys.js';
import { fromAllSources, type SourcePaths } from '../streams/fromAllSources.js';
import type { SessionEvents } from './sessionEvents.js';
import type { SessionLayers } from './sessionLayers.js';
import type { McpLiveOptions } from './types.js';

/** What a session reads: every source, its layers, and the desired state of the latest read. */
export interface SessionInputs {
  /** Every source and the session's layers, assembled into one input per change (subscribed once, by the pipeline). */
  readonly inputs$: Observable<AssembleInput>;
  /** The latest input, once one was read. */
  readonly latest: () => AssembleInput | undefined;
  /** The desired state of the latest input, assembled once per change of it. */
  readonly desired: () => DesiredState | undefined;
  /** Assembles what changed since the last assembly only (decision 102), shared with the pipeline. */
  readonly assembly: IncrementalDesired;
  /** The watchers' changes and reads, from the sources to the debounce (decision 105). */
  readonly activity$: Observable<ReadActivity>;
  /** Tells the sources that the approvals file was written (and what it now holds). */
  readonly written: Observer<ApprovalsRead>;
  readonly complete: () => void;
}

/** The session's sources, from the settings files and its own layers, as {@link SessionInputs}. */
export function sessionInputs(
  paths: SourcePaths,
  store: ApprovalsStore,
  layers: SessionLayers,
  events: Pick<SessionEvents, 'emit' | 'now' | 'warn'>,
  options: Pick<McpLiveOptions, 'extraSources' | 'watch' | 'allowedMcpServerNames'>,
): SessionInputs {
  const written = new Subject<ApprovalsRead>();
  const activity = new Subject<ReadActivity>();
  let latestInput: AssembleInput | undefined;
  let latestDesired: DesiredState | undefined;
  /** It runs on every input when the allow flag is set: incremental, never a whole assembly. */
  const assembly = createIncrementalDesired();
  const desired = (): DesiredState | undefined => {
    if (latestInput && !latestDesired) latestDesired = assembly.assemble(latestInput);
    return latestDesired;
  };

  /** The `--allowed-mcp-server-names` warning logged last: logged again only when it changes. */
  let allowedWarning: string | undefined;
  const warnUnmatchedAllowedNames = (): void => {
    if (options.allowedMcpServerNames === undefined) return;
    const warning = allowedNamesWarning(options.allowedMcpServerNames, Object.keys(desired()?.servers ?? {}));
    if (warning !== undefined && warning !== allowedWarning) events.warn(warning);
    allowedWarning = warning;
  };

  const inputs$ = fromAllSources(paths, {
    store,
    pathKeys: systemPathKeys,
    session$: layers.servers,
    sessionLsp$: layers.lsp,
    sessionApprovals$: layers.approvals,
    written$: written,
    extraSources: options.extraSources,
    watch: options.watch,
    onNotice: (n) => events.emit({ ...n, ts: events.now() }),
    onActivity: (a) => activity.next(a),
  }).pipe(
    withSessionEnablement(layers.enablement),
    tap((input) => {
      latestInput = input;
      latestDesired = undefined;
      warnUnmatchedAllowedNames();
    }),
  );

  return {
    inputs$,
    latest: () => latestInput,
    desired,
    assembly,
    activity$: activity.asObservable(),
    written,
    complete: () => {
      written.complete();
      activity.complete();
    },
  };
}
