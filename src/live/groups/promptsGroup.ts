import { distinctFlatList } from '../../operators/distinctFlatList.js';
import type { RequestRouter } from '../../sinks/mcp/requestRouter.js';
import type { StatusView } from '../../sinks/mcp/statusBoard.js';
import type { McpLivePrompts } from '../types.js';

export interface PromptsGroupDeps {
  board: Pick<StatusView, 'servers$'>;
  requests: Pick<RequestRouter, 'getPrompt' | 'complete'>;
}

/** `live.prompts`: the prompts of connected servers, and argument completions. */
export function promptsGroup({ board, requests }: PromptsGroupDeps): McpLivePrompts {
  return {
    list$: board.servers$.pipe(distinctFlatList((s) => s.prompts, (p, s) => ({ ...p, server: s.name }))),
    get: (name, args = {}, requestOptions) => requests.getPrompt(name, args, requestOptions),
    complete: (params, requestOptions) => requests.complete(params, requestOptions),
  };
}
