import { distinctFlatList } from '../../operators/distinctFlatList.js';
import type { Reconciler } from '../reconciler.js';
import type { McpLivePrompts } from '../types.js';

export interface PromptsGroupDeps {
  reconciler: Pick<Reconciler, 'servers$' | 'getPrompt' | 'complete'>;
}

/** `live.prompts`: the prompts of connected servers, and argument completions. */
export function promptsGroup({ reconciler: r }: PromptsGroupDeps): McpLivePrompts {
  return {
    list$: r.servers$.pipe(distinctFlatList((s) => s.prompts, (p, s) => ({ ...p, server: s.name }))),
    get: (name, args = {}, requestOptions) => r.getPrompt(name, args, requestOptions),
    complete: (params, requestOptions) => r.complete(params, requestOptions),
  };
}
