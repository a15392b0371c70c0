import { lspName } from '../serverKeys.js';
import type { ServerStatus } from '../report/status.js';

/** What the words about a language server that cannot take a file need of its status. */
export type UnavailableLanguageServer = Pick<ServerStatus, 'name' | 'state' | 'reason' | 'notAllowedBy' | 'detail' | 'error' | 'source'>;

/**
 * Why a file's configured language server cannot answer an `lsp__*` tool, and the fix (decision
 * 252): "the language server lsp:md for .md files is waiting for approval: approve lsp:md
 * (mcp-live approvals approve lsp:md, or /mcp in a session)". `files` names the files
 * (".md files"); `server.name` is the `lsp:NAME` key, the name every command takes. The words
 * are for whoever reads the tool's answer — an agent, which tells the user — so the fix names
 * both the shell command and the session's. "no language server handles …" stays for a file no
 * configured server takes.
 */
export function lspUnavailableText(files: string, server: UnavailableLanguageServer): string {
  const { situation, fix } = lspSituation(server);
  return `the language server ${server.name} for ${files} ${situation}: ${fix}`;
}

function lspSituation(s: UnavailableLanguageServer): { situation: string; fix: string } {
  const name = s.name;
  /** The lists `lsp.excluded` and `lsp.allowed` take a language server's own name. */
  const own = JSON.stringify(lspName(name));
  switch (s.reason) {
    case 'pending_approval':
      return { situation: 'is waiting for approval', fix: `approve ${name} (mcp-live approvals approve ${name}, or /mcp in a session)` };
    case 'rejected':
      return {
        situation: 'was rejected',
        fix: `approve it after all with mcp-live approvals approve ${name}, or edit its entry in ${s.source} to be asked again`,
      };
    case 'disabled':
      // `detail`: "disabled for this session" (`/mcp disable`, `{"cmd":"disable"}`).
      return s.detail === undefined
        ? { situation: 'is disabled in settings', fix: `remove "disabled": true from its entry in ${s.source}` }
        : { situation: `is ${s.detail}`, fix: `enable it with /mcp enable ${name} (or ${JSON.stringify({ cmd: 'enable', server: name })})` };
    case 'excluded':
      return { situation: 'is excluded by lsp.excluded', fix: `remove ${own} from lsp.excluded` };
    case 'not_allowed':
      return s.notAllowedBy === 'flag'
        ? { situation: 'is not in --allowed-mcp-server-names', fix: 'restart with it in --allowed-mcp-server-names' }
        : { situation: 'is not in lsp.allowed', fix: `add ${own} to lsp.allowed` };
    case 'untrusted_folder':
      return {
        situation: s.detail === undefined ? 'is blocked because this folder is not trusted' : 'is ignored because this folder is not trusted',
        fix: 'trust the folder with mcp-live trust',
      };
    case 'settings_error':
      return { situation: 'is blocked', fix: s.detail ?? 'your settings do not parse – fix them to start language servers' };
    case 'untrusted_launch':
      // Decision 301: the folder could change what the language server runs (its own typescript, say).
      return { situation: 'is held: this folder can change what it runs', fix: 'trust the folder with mcp-live trust (or /trust in a session)' };
    case 'removed':
      return { situation: 'was removed from settings', fix: 'add it back to settings' };
    case undefined:
      break;
  }
  switch (s.state) {
    case 'error':
      return {
        situation: `failed${s.error === undefined ? '' : `: ${s.error}`}`,
        fix: `check its entry in ${s.source}; /reconnect ${name} (or ${JSON.stringify({ cmd: 'reconnect', server: name })}) starts it again`,
      };
    case 'connecting':
      return { situation: 'is still starting', fix: 'try again in a moment' };
    default:
      return { situation: `is not connected (${s.state})`, fix: `/reconnect ${name} starts it again` };
  }
}
