import { join } from 'node:path';
import { NEVER, of, type Observable } from 'rxjs';
import type { AssembleInput } from '../../src/model/settings/assemble.js';
import { systemPathKeys } from '../../src/platform/systemPathKeys.js';
import { createApprovalsStore } from '../../src/sinks/stores/approvalsStore.js';
import { fromAllSources, type AllSourcesDeps, type SourcePaths } from '../../src/streams/fromAllSources.js';

/**
 * fromAllSources on a workspace that is one directory: every source file under its usual name in
 * `dir` (the user's settings.json, .mcp.json, .lsp.json, extensions/, mcpApprovals.json, …), no CLI
 * files, no session entries and nothing written by the session. `paths` and `deps` set what a
 * test needs besides (the CLI files, a hand-driven watcher, where notices go).
 */
export function allSourcesIn(
  dir: string,
  paths: Partial<SourcePaths>,
  deps: Pick<AllSourcesDeps, 'onNotice'> & Partial<AllSourcesDeps>,
): Observable<AssembleInput> {
  const approvals = join(dir, 'mcpApprovals.json');
  return fromAllSources(
    {
      cwd: dir,
      projectRoot: dir,
      user: join(dir, 'settings.json'),
      project: join(dir, '.mcp.json'),
      cli: [],
      lspProject: join(dir, '.lsp.json'),
      lspCli: [],
      extensionsDir: join(dir, 'extensions'),
      extensionManifest: 'qwen-extension.json',
      approvals,
      trustedFolders: join(dir, 'trustedFolders.json'),
      ...paths,
    },
    {
      store: createApprovalsStore(approvals),
      pathKeys: systemPathKeys,
      session$: of({}),
      sessionApprovals$: of({}),
      written$: NEVER,
      ...deps,
    },
  );
}
