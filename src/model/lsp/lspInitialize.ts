import { basename } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ClientCapabilities, InitializeParams, SymbolKind, WorkspaceFolder } from 'vscode-languageserver-protocol';

/**
 * What mcp-live says about itself in a language server's `initialize` (decision 152). The client
 * capabilities are the ones it honours, no more: a server that believes a client can do
 * something sends requests nobody answers, or holds back what it would otherwise push.
 *
 * - documents are synchronised whole and never saved (`didSave: false`);
 * - hover, definition, references and the symbol requests are what the agent's tools send;
 * - diagnostics are taken pushed (`publishDiagnostics`) and pulled (`textDocument/diagnostic`);
 * - `workspace/configuration` is answered from the entry's `settings`, which also go out with
 *   `workspace/didChangeConfiguration` when they change; `workspace/workspaceFolders` with the
 *   one folder.
 *
 * Not offered: dynamic registration, work-done progress, `workspace/applyEdit`, refresh requests.
 */

/** Every symbol kind of LSP 3.17 (1 File … 26 TypeParameter): we show any kind a server names. */
const ALL_SYMBOL_KINDS = Array.from({ length: 26 }, (_, i) => (i + 1) as SymbolKind);

export const LSP_CLIENT_CAPABILITIES: ClientCapabilities = {
  general: { positionEncodings: ['utf-16'] },
  workspace: {
    configuration: true,
    didChangeConfiguration: { dynamicRegistration: false },
    workspaceFolders: true,
    symbol: { dynamicRegistration: false, symbolKind: { valueSet: ALL_SYMBOL_KINDS } },
  },
  textDocument: {
    synchronization: { dynamicRegistration: false, willSave: false, willSaveWaitUntil: false, didSave: false },
    hover: { dynamicRegistration: false, contentFormat: ['markdown', 'plaintext'] },
    definition: { dynamicRegistration: false, linkSupport: false },
    references: { dynamicRegistration: false },
    documentSymbol: {
      dynamicRegistration: false,
      hierarchicalDocumentSymbolSupport: true,
      symbolKind: { valueSet: ALL_SYMBOL_KINDS },
    },
    publishDiagnostics: { relatedInformation: true },
    diagnostic: { dynamicRegistration: false, relatedDocumentSupport: false },
  },
};

export interface InitializeInput {
  /** Absolute: the server's root. */
  workspaceFolder: string;
  initializationOptions?: unknown;
  clientName: string;
  clientVersion?: string;
  /** Ours: a server may watch it and exit when we are gone. */
  processId: number;
}

export function initializeParams(input: InitializeInput): InitializeParams {
  const folders = workspaceFolders(input.workspaceFolder);
  const params: InitializeParams = {
    processId: input.processId,
    clientInfo: input.clientVersion === undefined ? { name: input.clientName } : { name: input.clientName, version: input.clientVersion },
    // Deprecated in favour of workspaceFolders, still read by some servers.
    rootPath: input.workspaceFolder,
    rootUri: folders[0]!.uri,
    workspaceFolders: folders,
    capabilities: LSP_CLIENT_CAPABILITIES,
  };
  if (input.initializationOptions !== undefined) params.initializationOptions = input.initializationOptions;
  return params;
}

/** The one workspace folder a server is started for, as `initialize` and `workspace/workspaceFolders` give it. */
export function workspaceFolders(folder: string): WorkspaceFolder[] {
  return [{ uri: pathToFileURL(folder).href, name: basename(folder) || folder }];
}
