import type { NeedsAuthorization } from '../connection.js';
import type { ServerStatus } from './status.js';
import { launchHeldWhy, TRUST_FIX } from '../launch/launchHold.js';
import { shellWord } from '../shellWord.js';
import type { NotAllowedBy, Reason, ServerKind } from '../types.js';

/**
 * Who reads a fix hint, so it names a step that works there: the terminal UI (`/mcp`), the
 * `--json` protocol (a command line to send), or a host embedding the library (a shell command).
 */
export type HintAudience = 'ui' | 'json' | 'library';

/** The view field that hides a tool a connected server offers. */
/** What hides a tool its server lists: a view field, or a definition changed since it was approved (decision 197). */
export type ToolFilter = 'includeTools' | 'excludeTools' | 'withheld';

/**
 * A blocked server's reason in words, as the server list shows it (docs/contract.md, "Interactive
 * session"). `not_allowed` names the bound that rejected it (see `admit`); without `notAllowedBy`
 * it names the settings. A language server's bounds are the `lsp.*` keys (decision 147), so `kind`
 * picks the words of the two reasons that name a settings key.
 */
export function reasonText(reason: Reason, notAllowedBy?: NotAllowedBy, detail?: string, kind: ServerKind = 'mcp'): string {
  switch (reason) {
    case 'settings_error':
      return detail ?? 'your settings do not parse – fix them to connect servers';
    case 'pending_approval':
      return 'needs approval';
    case 'rejected':
      return 'rejected – edit its config to be asked again';
    case 'excluded':
      return `excluded by ${kind}.excluded`;
    case 'not_allowed':
      return notAllowedBy === 'flag' ? 'not in --allowed-mcp-server-names' : `not in ${kind}.allowed`;
    case 'untrusted_folder':
      // `detail`: a workspace or `.mcp.json` server, whose file is ignored (decision 260).
      return detail ?? 'untrusted folder – run `mcp-live trust` to trust it';
    case 'disabled':
      // `detail`: "disabled for this session" (`/mcp disable`, `{"cmd":"disable"}`).
      return detail ?? 'disabled in settings';
    case 'untrusted_launch':
      // `detail`: which files (or which command) could change what it runs (decision 301).
      return detail ?? `held: this folder can change what it runs – ${TRUST_FIX}`;
    case 'removed':
      return 'removed from settings';
  }
}

/**
 * A blocked server's reason as a shell command's table says it (`mcp-live plan`, `status`): a
 * pending one also names the command that approves it, in the words of the `--json` hint
 * ("needs approval – approve it with mcp-live approvals approve NAME", decision 321); every
 * other reason as {@link reasonText} says it.
 */
export function reasonTextForShell(server: string, reason: Reason, notAllowedBy?: NotAllowedBy, detail?: string, kind: ServerKind = 'mcp'): string {
  if (reason === 'pending_approval') return `${reasonText(reason)} – ${approveHint(server, 'library')}`;
  return reasonText(reason, notAllowedBy, detail, kind);
}

/**
 * A held server's words for the terminal UI (decision 304): the fix there is `/trust`, which
 * trusts the session's folder in one step, not a shell command — and it comes first, for a row
 * of the list is cut at the terminal's width: "held until /trust: this folder can change what
 * it runs (node_modules)".
 */
export function launchHeldForUi(text: string): string {
  const why = launchHeldWhy(text);
  return why === undefined ? text : `held until /trust: this folder can change what it runs (${why})`;
}

/**
 * Why an idle server has no process (decision 196), in words: "lazy — starts on first use", or
 * "stopped after 5 min idle"; with the error of its last process when it ended on its own. Idle
 * is not a failure: its tools are listed and callable, the first call starts it. The list, the
 * detail view and `mcp-live status` say it alike.
 */
export function idleText(s: Pick<ServerStatus, 'idle' | 'idleTimeoutMs' | 'error'>): string {
  const why = s.idle === 'idle-timeout' && s.idleTimeoutMs !== undefined ? `stopped after ${formatDuration(s.idleTimeoutMs)} idle` : 'lazy — starts on first use';
  return s.error === undefined ? why : `${why} (last process: ${s.error})`;
}

/** `1 tool`, `2 tools`, `0 capabilities` (with `words` for an irregular plural). */
export function plural(n: number, word: string, words = `${word}s`): string {
  return `${n} ${n === 1 ? word : words}`;
}

/**
 * A duration as a person says it: `250 ms`, `30 s`, `1.5 s`, `5 min`, `2 min 30 s`, `1 h`,
 * `1 h 30 min` — at most two units, rounded to the smaller one (an `idleTimeout` of 90 minutes
 * is not "2 h").
 */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 1_000) return `${Number.isFinite(ms) ? Math.round(ms) : ms} ms`;
  const tenths = Math.round(ms / 100);
  if (tenths < 600) return `${tenths / 10} s`;
  const seconds = Math.round(ms / 1_000);
  if (seconds < 3_600) return twoUnits(Math.floor(seconds / 60), 'min', seconds % 60, 's');
  const minutes = Math.round(ms / 60_000);
  return twoUnits(Math.floor(minutes / 60), 'h', minutes % 60, 'min');
}

function twoUnits(big: number, bigUnit: string, small: number, smallUnit: string): string {
  return small === 0 ? `${big} ${bigUnit}` : `${big} ${bigUnit} ${small} ${smallUnit}`;
}

/**
 * A blocked server's situation as a sentence predicate, and what the user can do about it
 * (docs/contract.md, "Interactive session"). A name outside the flag cannot be fixed by any
 * settings file — the flag is fixed for the life of the process — so that case says to restart with
 * the name in the flag instead of pointing at mcp.allowed.
 */
function blockedSentence(
  reason: Reason,
  notAllowedBy: NotAllowedBy | undefined,
  detail: string | undefined,
  server: string,
  audience: HintAudience,
): { situation: string; fix: string } {
  switch (reason) {
    case 'settings_error':
      return { situation: 'is blocked', fix: detail ?? 'your settings do not parse – fix them to connect servers' };
    case 'removed':
      return { situation: 'was removed from settings', fix: 'add it back to settings' };
    case 'excluded':
      return { situation: 'is excluded by mcp.excluded', fix: 'remove it from mcp.excluded' };
    case 'not_allowed':
      return notAllowedBy === 'flag'
        ? { situation: 'is not in --allowed-mcp-server-names', fix: 'restart with it in --allowed-mcp-server-names' }
        : { situation: 'is not in mcp.allowed', fix: 'add it to mcp.allowed (within --allowed-mcp-server-names)' };
    case 'pending_approval':
      return { situation: 'needs approval', fix: approveHint(server, audience) };
    case 'rejected':
      return { situation: 'was rejected', fix: 'edit its config to be asked again' };
    case 'untrusted_folder':
      return detail === undefined
        ? { situation: 'is blocked because this folder is not trusted', fix: 'run `mcp-live trust` to trust it' }
        : { situation: 'is ignored because this folder is not trusted', fix: 'run `mcp-live trust` to read its settings' };
    case 'disabled':
      return detail === undefined
        ? { situation: 'is disabled in settings', fix: 'set disabled: false' }
        : { situation: `is ${detail}`, fix: enableHint(server, audience) };
    case 'untrusted_launch':
      return { situation: `is ${heldWhy(detail)}`, fix: audience === 'ui' ? 'type /trust to allow it' : TRUST_FIX };
  }
}

/** "held because this folder can change what it runs (node_modules)": the detail without its fix. */
function heldWhy(detail: string | undefined): string {
  const why = detail === undefined ? undefined : launchHeldWhy(detail);
  return `held because this folder can change what it runs${why === undefined ? '' : ` (${why})`}`;
}

/** How to approve a server's changed tools (decision 197): only the running session shows the new surface. */
function surfaceApproveHint(server: string, audience: HintAudience): string {
  switch (audience) {
    case 'ui':
      return 'approve its new tools with /mcp';
    case 'json':
      return `approve them with ${JSON.stringify({ cmd: 'approve', server })} and the hash of their approval-required event`;
    case 'library':
      return `approve them with approve(${JSON.stringify(server)}, { hash }) and the hash of their approval-required event`;
  }
}

/** How to approve a pending server, in the terms of where the hint is read. */
function approveHint(server: string, audience: HintAudience): string {
  const shell = `mcp-live approvals approve ${shellWord(server)}`;
  switch (audience) {
    case 'ui':
      return 'approve it with /mcp';
    case 'json':
      return `approve it with ${JSON.stringify({ cmd: 'approve', server })} or ${shell}`;
    case 'library':
      return `approve it with ${shell}`;
  }
}

/**
 * A server that waits for the user's authorization (decision 83), and how to give it: "needs
 * authentication – run /mcp auth github". `why` and `scope` come from the connection's
 * `NeedsAuthorization`: a token the server refused, or a call that needs more scope.
 */
export function needsAuthText(server: string, { why, scope }: { why: NeedsAuthorization['why']; scope?: string }, audience: HintAudience): string {
  // A connect while the user signs in: the flow reconnects the server when it ends (decision 187).
  if (why === 'in_progress') return 'authorization in progress – finish signing in in the browser; the server reconnects then';
  const fix = authHint(server, audience);
  if (why === 'scope') return `needs more authorization${scope ? ` (scope "${scope}")` : ''} – ${fix}`;
  if (why === 'refused') return `needs authentication again (the server refused the stored token) – ${fix}`;
  return `needs authentication – ${fix}`;
}

/** How to start an authorization, in the terms of where the hint is read. */
function authHint(server: string, audience: HintAudience): string {
  switch (audience) {
    case 'ui':
      return `run /mcp auth ${server}`;
    case 'json':
      return `send ${JSON.stringify({ cmd: 'auth', server })}`;
    case 'library':
      return `run mcp-live auth ${shellWord(server)}`;
  }
}

/** How to enable a server disabled for this session, in the terms of where the hint is read. */
function enableHint(server: string, audience: HintAudience): string {
  switch (audience) {
    case 'ui':
      return `enable it with /mcp enable ${server}`;
    case 'json':
      return `enable it with ${JSON.stringify({ cmd: 'enable', server })}`;
    case 'library':
      return 'enable it again (enable())';
  }
}

/**
 * Why a prompt of a pinned server is not served (decision 311): its definition changed since the
 * user approved the server's surface — the words a withheld tool gets.
 */
export function withheldPromptMessage(prompt: string, server: string, audience: HintAudience = 'library', because?: string): string {
  if (because !== undefined) return `Prompt "${prompt}" is not available: MCP server "${server}" ${because}.`;
  return `Prompt "${prompt}" is not available: the prompt's definition changed since you approved it: review it – ${surfaceApproveHint(server, audience)}.`;
}

/** What else {@link toolNotFoundMessage} knows: who reads it, and whether a view field hides the tool. */
export interface ToolNotFoundContext {
  /** Default `library`. */
  audience?: HintAudience;
  /** The server offers the tool (`tool`, its own name) but this view field hides it. */
  filteredOut?: { tool: string; by: ToolFilter };
  /** Why a withheld tool is withheld, when it is not a change to approve (decision 307): follows `MCP server "<name>" `. */
  withheldBecause?: string;
}

/**
 * Why a tool call found no tool, naming the server and the fix (docs/contract.md, "Interactive
 * session"). `server` is the server the name points at (undefined when it points at none), `status`
 * what is known about that server (undefined when no such server is configured). A blocked server
 * gets its reason and fix, a failed one its error, a tool hidden by `includeTools`/`excludeTools`
 * the field that hides it; a server that is up but lacks the tool is said to lack it.
 */
export function toolNotFoundMessage(
  toolName: string,
  server: string | undefined,
  status: { state?: string; reason?: Reason; notAllowedBy?: NotAllowedBy; detail?: string; error?: string } | undefined,
  { audience = 'library', filteredOut, withheldBecause }: ToolNotFoundContext = {},
): string {
  const head = `Tool "${toolName}" is not available`;
  if (server === undefined) return `${head}: it does not name a tool of any configured MCP server.`;
  if (status === undefined) return `${head}: no MCP server "${server}" is configured.`;
  if (status.reason !== undefined) {
    const { situation, fix } = blockedSentence(status.reason, status.notAllowedBy, status.detail, server, audience);
    return `${head}: MCP server "${server}" ${situation} – ${fix}.`;
  }
  if (status.state === 'needs_auth' && status.error !== undefined) return `${head}: MCP server "${server}" ${status.error}.`;
  if (status.error !== undefined) return `${head}: MCP server "${server}" failed: ${status.error}`;
  if (filteredOut?.by === 'withheld') {
    if (withheldBecause !== undefined) return `${head}: MCP server "${server}" ${withheldBecause}.`;
    return `${head}: the tool's definition changed since you approved it: review it – ${surfaceApproveHint(server, audience)}.`;
  }
  if (filteredOut?.by === 'excludeTools') {
    return `${head}: tool "${filteredOut.tool}" of MCP server "${server}" is filtered out by excludeTools – remove it from excludeTools to use it.`;
  }
  if (filteredOut?.by === 'includeTools') {
    return `${head}: tool "${filteredOut.tool}" of MCP server "${server}" is filtered out by includeTools (it is not listed there) – add it to includeTools to use it.`;
  }
  return `${head}: MCP server "${server}" does not offer it.`;
}
