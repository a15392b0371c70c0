import { combineLatest, filter, firstValueFrom, from, map, takeUntil } from 'rxjs';
import { lspOperationOf } from '../../model/lsp/lspTools.js';
import type { QualifiedTool, ServerStatus } from '../../model/report/status.js';
import { searchTools } from '../../model/tools/toolSearch.js';
import { untilAborted } from '../../model/untilAborted.js';
import type { LanguageServers } from '../../sinks/lsp/languageServers.js';
import type { RequestRouter } from '../../sinks/mcp/requestRouter.js';
import type { StatusView } from '../../sinks/mcp/statusBoard.js';
import type { McpLiveTools } from '../types.js';

export interface ToolsGroupDeps {
  board: Pick<StatusView, 'tools$' | 'list' | 'changes$'>;
  requests: Pick<RequestRouter, 'callTool' | 'serverOfTool' | 'toolNotFoundMessage'>;
  languageServers: Pick<LanguageServers, 'tools$' | 'callTool'>;
  /** Settles when the first pass has ended (`ready`); undefined before `start()`. */
  firstPass: () => Promise<void> | undefined;
  /** The latest of `list$` (the same list object while it is unchanged: the search index is built once per change). */
  current: () => readonly QualifiedTool[];
}

/** `live.tools` (decision 346): the tools of connected servers and of language servers, and calls to them. */
export function toolsGroup({ board, requests, languageServers, firstPass: started, current }: ToolsGroupDeps): McpLiveTools {
  return {
    // The agent's `lsp__*` tools follow the MCP servers' tools, while a language server can answer them.
    list$: combineLatest([board.tools$, languageServers.tools$]).pipe(map(([mcp, lspTools]) => (lspTools.length === 0 ? mcp : [...mcp, ...lspTools]))),

    call: async (qualifiedName, args = {}, callOptions = {}) => {
      const firstPass = started();
      if (firstPass === undefined) throw new Error('mcp-live is not started: call start() first');
      if (lspOperationOf(qualifiedName) !== undefined) {
        // Asked at start: the language servers of the first pass may still be connecting.
        await untilAborted(firstPass.catch(() => undefined), callOptions.signal);
        return languageServers.callTool(qualifiedName, args, callOptions);
      }
      const lists = (s: ServerStatus) => s.tools.some((t) => t.name === qualifiedName);
      if (!board.list().some(lists)) {
        // Until it is listed or the first pass has ended (decision 325): a server that connects is
        // called at once, whatever another one is still doing (a first `npx` download).
        const ended = firstPass.catch(() => {
          throw new Error('mcp-live was disposed before its first pass ended');
        });
        const listed = firstValueFrom(board.changes$.pipe(filter(lists), map(() => undefined), takeUntil(from(ended.catch(() => undefined)))), {
          defaultValue: undefined,
        });
        await untilAborted(Promise.race([listed, ended]), callOptions.signal);
      }
      return requests.callTool(qualifiedName, args, callOptions);
    },

    search: (query, searchOptions) => searchTools(current(), query, searchOptions),
    serverOf: (q) => requests.serverOfTool(q),
    notFoundMessage: (q) => requests.toolNotFoundMessage(q),
  };
}
