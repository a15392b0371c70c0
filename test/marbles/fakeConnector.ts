import { EMPTY, NEVER, Subject, defer, ignoreElements, map, merge, mergeMap, tap, throwError, timer, type SchedulerLike } from 'rxjs';
import type { Connection, Connector } from '../../src/model/connection.js';
import type { ResolvedServerConfig, ServerLists } from '../../src/model/types.js';

/** How a fake server behaves; read from the resolved config's args. */
interface FakeBehaviour {
  connectMs: number;
  closeMs: number;
  fail?: string;
  /** Never answers `initialize`: the attempt ends only when it is unsubscribed (aborted). */
  hang?: boolean;
  tools: string[];
  prompts: string[];
}

/**
 * A process-free connector for virtual-time tests. A server's behaviour comes from its args
 * (`connect=30`, `close=20`, `fail=boom`, `tools=a,b`, `prompts=p,q`, `hang`), so editing args in a test is a
 * real fingerprint change. Every connect, connected, failed, close and closed is logged with the
 * virtual time, so tests can check order and overlap; attempts unsubscribed before they settled
 * (aborted: the real connector ends their processes) go to `aborts`.
 */
export function fakeConnector(scheduler: SchedulerLike) {
  const log: string[] = [];
  const aborts: string[] = [];
  const live = new Map<string, Subject<Partial<ServerLists>>>();
  let pids = 100;
  const at = () => scheduler.now();

  const connector: Connector = (name: string, config: ResolvedServerConfig) =>
    defer(() => {
      const b = behaviour(config);
      log.push(`${at()} connect ${name}`);
      const abortable = tap<Connection>({ unsubscribe: () => aborts.push(`${at()} aborted ${name}`) });
      if (b.hang) return NEVER.pipe(abortable);
      if (b.fail !== undefined) {
        const fail = b.fail;
        return timer(b.connectMs, scheduler).pipe(
          mergeMap(() => {
            log.push(`${at()} failed ${name}`);
            return throwError(() => new Error(fail));
          }),
        );
      }
      return timer(b.connectMs, scheduler).pipe(
        map((): Connection => {
          const lists$ = new Subject<Partial<ServerLists>>();
          live.set(name, lists$);
          const pid = ++pids;
          log.push(`${at()} connected ${name} pid=${pid}`);
          let closed = false;
          return {
            pid,
            lists: { tools: b.tools.map((t) => ({ name: t })), prompts: b.prompts.map((p) => ({ name: p })), resources: [] },
            lists$: merge(lists$),
            // `slow` never answers (and ignores its signal): what a cancel must not wait for.
            callTool: (tool, args) => (tool === 'slow' ? new Promise<never>(() => undefined) : Promise.resolve({ tool, args })),
            stderrTail: () => [],
            close: () =>
              defer(() => {
                if (closed) return EMPTY;
                closed = true;
                lists$.complete();
                log.push(`${at()} close ${name} pid=${pid}`);
                return timer(b.closeMs, scheduler).pipe(
                  ignoreElements(),
                  tap({ complete: () => log.push(`${at()} closed ${name} pid=${pid}`) }),
                );
              }),
          };
        }),
        abortable,
      );
    });

  return {
    connector,
    log,
    aborts,
    /** Makes the live connection of NAME die as a crashed process would. */
    kill(name: string, message = 'process exited with code 1') {
      live.get(name)?.error(new Error(message));
    },
    /** A `tools/list_changed` with a new tool list. */
    changeTools(name: string, tools: string[]) {
      live.get(name)?.next({ tools: tools.map((t) => ({ name: t })) });
    },
    /** How many times NAME was connected (started). */
    starts(name: string): number {
      return log.filter((l) => l.endsWith(` connect ${name}`)).length;
    },
  };
}

function behaviour(config: ResolvedServerConfig): FakeBehaviour {
  const b: FakeBehaviour = { connectMs: 10, closeMs: 5, tools: ['echo'], prompts: [] };
  for (const arg of config.args) {
    const [k, v = ''] = arg.split('=');
    if (k === 'connect') b.connectMs = Number(v);
    if (k === 'close') b.closeMs = Number(v);
    if (k === 'fail') b.fail = v;
    if (k === 'tools') b.tools = v ? v.split(',') : [];
    if (k === 'prompts') b.prompts = v ? v.split(',') : [];
    if (k === 'hang') b.hang = true;
  }
  return b;
}
