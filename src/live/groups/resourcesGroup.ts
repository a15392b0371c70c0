import type { RequestRouter } from '../../sinks/mcp/requestRouter.js';
import type { StatusView } from '../../sinks/mcp/statusBoard.js';
import type { McpLiveResources } from '../types.js';

export interface ResourcesGroupDeps {
  board: Pick<StatusView, 'list'>;
  requests: Pick<RequestRouter, 'readResource' | 'subscribeResource' | 'unsubscribeResource' | 'serverOfResource'>;
}

/** `live.resources`: the resources of connected servers (`resources/*`), routed by URI. */
export function resourcesGroup({ board, requests }: ResourcesGroupDeps): McpLiveResources {
  return {
    list: () => board.list().flatMap((s) => s.resources.map((resource) => ({ ...resource, server: s.name }))),
    templates: () => board.list().flatMap((s) => (s.resourceTemplates ?? []).map((template) => ({ ...template, server: s.name }))),
    read: (uri, requestOptions) => requests.readResource(uri, requestOptions),
    subscribe: (uri, requestOptions) => requests.subscribeResource(uri, requestOptions),
    unsubscribe: (uri, requestOptions) => requests.unsubscribeResource(uri, requestOptions),
    serverOf: (uri, request) => requests.serverOfResource(uri, request),
  };
}
