import { asyncScheduler, type Observable } from 'rxjs';
import { createMcpLive, type McpLive, type McpLiveOptions } from '../../src/index.js';
import { fakeConnector } from '../marbles/fakeConnector.js';
import type { TestScope } from './workspace.js';

/** An entry of the process-free fake connector (`connect=200`, `hang`, `prompts=p1`, …). */
export const fake = (...args: string[]) => ({ command: 'fake', args });

/**
 * A session on a temp workspace (`prefix`), its servers from a stream of user scope, connected by
 * the process-free fake connector; `options` add to or replace any of that (`extraSources` too).
 */
export function fakeSession(scope: TestScope, prefix: string, servers$: Observable<Record<string, unknown>>, options: Partial<McpLiveOptions> = {}): McpLive {
  const ws = scope.workspace(prefix, { qwen: false });
  return scope.track(
    createMcpLive({
      homeDir: ws.homeDir,
      cwd: ws.cwd,
      runtimeDir: ws.runtimeDir,
      debounceMs: 20,
      connector: fakeConnector(asyncScheduler).connector,
      extraSources: [{ scope: 'user', source: 'stream', servers$ }],
      ...options,
    }),
  );
}
