#!/usr/bin/env node
// The demo's language server: a tiny one for notes (.md, .txt), so the demo shows a language
// server reconciled beside the MCP servers without installing a real one. It knows words:
//   hover       the word under the cursor and how often the document uses it
//   definition  the word's first use in the document
//   symbols     the document's Markdown headings
//   diagnostics a warning on each line with TODO (more with settings { "words": { "flag": [...] } })
// It asks for its settings (`workspace/configuration`, section "words") at start and again on
// each `didChangeConfiguration`: edit them in the demo's settings and it re-checks every document.
import {
  ConfigurationRequest,
  DefinitionRequest,
  DiagnosticSeverity,
  DidChangeConfigurationNotification,
  DidChangeTextDocumentNotification,
  DidCloseTextDocumentNotification,
  DidOpenTextDocumentNotification,
  DocumentSymbolRequest,
  ExitNotification,
  HoverRequest,
  InitializedNotification,
  InitializeRequest,
  PublishDiagnosticsNotification,
  ShutdownRequest,
  StreamMessageReader,
  StreamMessageWriter,
  SymbolKind,
  TextDocumentSyncKind,
  createProtocolConnection,
} from 'vscode-languageserver-protocol/node';

const connection = createProtocolConnection(new StreamMessageReader(process.stdin), new StreamMessageWriter(process.stdout));
const documents = new Map();
let flagged = ['TODO'];

const wordAt = (text, { line, character }) => {
  const row = text.split('\n')[line] ?? '';
  const before = /[\p{L}\p{N}_]*$/u.exec(row.slice(0, character))[0];
  const after = /^[\p{L}\p{N}_]*/u.exec(row.slice(character))[0];
  return before + after;
};

const check = (uri) => {
  const text = documents.get(uri);
  if (text === undefined) return;
  const diagnostics = text.split('\n').flatMap((row, line) =>
    flagged
      .filter((word) => row.includes(word))
      .map((word) => ({
        range: { start: { line, character: row.indexOf(word) }, end: { line, character: row.indexOf(word) + word.length } },
        severity: DiagnosticSeverity.Warning,
        source: 'words',
        message: `"${word}" left in the text`,
      })),
  );
  void connection.sendNotification(PublishDiagnosticsNotification.type, { uri, diagnostics });
};

const loadSettings = async () => {
  const [words] = await connection.sendRequest(ConfigurationRequest.type, { items: [{ section: 'words' }] });
  flagged = Array.isArray(words?.flag) ? words.flag.filter((w) => typeof w === 'string' && w !== '') : ['TODO'];
  for (const uri of documents.keys()) check(uri);
};

connection.onRequest(InitializeRequest.type, () => ({
  capabilities: { textDocumentSync: TextDocumentSyncKind.Full, hoverProvider: true, definitionProvider: true, documentSymbolProvider: true },
  serverInfo: { name: 'words-language-server', version: '1.0.0' },
}));
connection.onNotification(InitializedNotification.type, () => void loadSettings().catch(() => undefined));
connection.onNotification(DidChangeConfigurationNotification.type, () => void loadSettings().catch(() => undefined));
connection.onNotification(DidOpenTextDocumentNotification.type, ({ textDocument }) => {
  documents.set(textDocument.uri, textDocument.text);
  check(textDocument.uri);
});
connection.onNotification(DidChangeTextDocumentNotification.type, ({ textDocument, contentChanges }) => {
  documents.set(textDocument.uri, contentChanges.at(-1).text);
  check(textDocument.uri);
});
connection.onNotification(DidCloseTextDocumentNotification.type, ({ textDocument }) => documents.delete(textDocument.uri));
connection.onRequest(HoverRequest.type, ({ textDocument, position }) => {
  const text = documents.get(textDocument.uri) ?? '';
  const word = wordAt(text, position);
  if (word === '') return null;
  const uses = text.match(new RegExp(`(?<![\\p{L}\\p{N}_])${word}(?![\\p{L}\\p{N}_])`, 'gu'))?.length ?? 0;
  return { contents: { kind: 'markdown', value: `**${word}** — used ${uses} time${uses === 1 ? '' : 's'} in this document` } };
});
connection.onRequest(DefinitionRequest.type, ({ textDocument, position }) => {
  const text = documents.get(textDocument.uri) ?? '';
  const word = wordAt(text, position);
  const rows = text.split('\n');
  const line = rows.findIndex((row) => row.includes(word));
  if (word === '' || line < 0) return null;
  const character = rows[line].indexOf(word);
  return { uri: textDocument.uri, range: { start: { line, character }, end: { line, character: character + word.length } } };
});
connection.onRequest(DocumentSymbolRequest.type, ({ textDocument }) =>
  (documents.get(textDocument.uri) ?? '').split('\n').flatMap((row, line) => {
    const heading = /^(#+)\s+(.*)$/.exec(row);
    if (!heading) return [];
    const range = { start: { line, character: 0 }, end: { line, character: row.length } };
    return [{ name: heading[2], detail: `h${heading[1].length}`, kind: SymbolKind.String, range, selectionRange: range }];
  }),
);
connection.onRequest(ShutdownRequest.type, () => null);
connection.onNotification(ExitNotification.type, () => process.exit(0));
connection.onClose(() => process.exit(0));
connection.listen();
