import { lspName } from '../../model/serverKeys.js';
import type { LanguageServers } from '../../sinks/lsp/languageServers.js';
import { editSessionLayer, type SessionLayer } from '../sessionLayers.js';
import type { McpLiveLsp } from '../types.js';

export interface LspGroupDeps {
  languageServers: Pick<LanguageServers, 'servers$' | 'diagnostics$' | 'request' | 'openDocument' | 'changeDocument' | 'closeDocument'>;
  /** The session's own language servers, and the pass that applies a change of them. */
  layer: SessionLayer;
  reload: () => void;
}

/** `live.lsp` (decision 145): the language servers, the session's open documents, LSP requests. */
export function lspGroup({ languageServers, layer, reload }: LspGroupDeps): McpLiveLsp {
  const edit = (name: string, config: Record<string, unknown> | undefined): void => {
    editSessionLayer(layer, lspName(name), config);
    reload();
  };
  return {
    servers$: languageServers.servers$,
    diagnostics$: languageServers.diagnostics$,
    request: (method, params, target, requestOptions) => languageServers.request(method, params, target, requestOptions),
    open: (path, text) => languageServers.openDocument(path, text),
    change: (path, text) => languageServers.changeDocument(path, text),
    close: (path) => languageServers.closeDocument(path),

    addSession: (name, config) => edit(name, config),
    removeSession: (name) => edit(name, undefined),
  };
}
