import type { Reconciler } from '../reconciler.js';
import type { McpLiveResources } from '../types.js';

export interface ResourcesGroupDeps {
  reconciler: Pick<Reconciler, 'list' | 'readResource' | 'subscribeResource' | 'unsubscribeResource' | 'serverOfResource'>;
}

/** `live.resources`: the resources of connected servers (`resources/*`), routed by URI. */
export function resourcesGroup({ reconciler: r }: ResourcesGroupDeps): McpLiveResources {
  return {
    list: () => r.list().flatMap((s) => s.resources.map((resource) => ({ ...resource, server: s.name }))),
    templates: () => r.list().flatMap((s) => (s.resourceTemplates ?? []).map((template) => ({ ...template, server: s.name }))),
    read: (uri, requestOptions) => r.readResource(uri, requestOptions),
    subscribe: (uri, requestOptions) => r.subscribeResource(uri, requestOptions),
    unsubscribe: (uri, requestOptions) => r.unsubscribeResource(uri, requestOptions),
    serverOf: (uri, request) => r.serverOfResource(uri, request),
  };
}
