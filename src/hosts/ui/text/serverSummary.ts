import { lspName, serverKind } from '../../../model/serverKeys.js';
import { idleText, launchHeldForUi, plural, reasonText } from '../../../model/report/messages.js';
import type { ServerStatus } from '../../../model/report/status.js';
import type { ServerState } from '../../../model/types.js';

/** Ink colour names used by the list. */
export type Tone = 'green' | 'yellow' | 'red' | 'gray';

/** The icon and colour of a server's state (docs/contract.md, "Interactive session"). */
export function stateIcon(s: Pick<ServerStatus, 'state' | 'reason'>): { icon: string; color: Tone } {
  const icons: Record<ServerState, { icon: string; color: Tone }> = {
    connected: { icon: '●', color: 'green' },
    connecting: { icon: '◌', color: 'yellow' },
    // Listed and ready, no process until the first request (decision 196).
    idle: { icon: '◍', color: 'green' },
    error: { icon: '✖', color: 'red' },
    disconnected: { icon: '○', color: 'gray' },
    // Waiting for the user to authorize (`/mcp auth NAME`): actionable, like a pending approval.
    needs_auth: { icon: '◇', color: 'yellow' },
    // Waiting for the user is actionable (yellow); other blocks are settled choices (grey).
    blocked: { icon: '⊘', color: s.reason === 'pending_approval' || s.reason === 'untrusted_launch' ? 'yellow' : 'gray' },
  };
  return icons[s.state];
}

/**
 * Why a server that is not connected has no tools, in words: the admission reason through
 * `reasonText` (the words of docs/contract.md, "Interactive session"), the error text for a
 * failure, else the state itself. Undefined for a connected server.
 */
export function statusText(s: ServerStatus): string | undefined {
  if (s.state === 'connected') return undefined;
  // A held server's fix here is `/trust` (decision 304).
  if (s.reason === 'untrusted_launch') return launchHeldForUi(reasonText(s.reason, s.notAllowedBy, s.detail));
  if (s.reason !== undefined) return reasonText(s.reason, s.notAllowedBy, s.detail, s.kind ?? 'mcp');
  if (s.state === 'error' || s.state === 'needs_auth') return s.error ?? s.state;
  if (s.state === 'idle') return idleText(s);
  return s.state;
}

/** Counts for the list footer. */
export interface ServerCounts {
  /** Connected, idle ones included: their tools are listed and callable (decision 196). */
  connected: number;
  /** Of those, how many have no process now. */
  idle: number;
  /** Promptable: waiting for a decision. */
  needApproval: number;
  /** Real failures only: blocked servers (approval-skipped included) are never counted here. */
  errors: number;
  /** The first failed server's key, for the "view error logs with /mcp NAME" (or `/lsp NAME`) hint. */
  firstError?: string;
}

export function countServers(servers: readonly ServerStatus[]): ServerCounts {
  const counts: ServerCounts = { connected: 0, idle: 0, needApproval: 0, errors: 0 };
  for (const s of servers) {
    // An idle server is up as far as its tools go: the first call starts it (decision 196).
    if (s.state === 'connected' || s.state === 'idle') counts.connected += 1;
    if (s.state === 'idle') counts.idle += 1;
    if (s.reason === 'pending_approval') counts.needApproval += 1;
    if (s.state === 'error') {
      counts.errors += 1;
      counts.firstError ??= s.name;
    }
  }
  return counts;
}

/** Whether a status is a language server's (decision 157): the list gives those a section of their own. */
export function isLanguageServer(s: Pick<ServerStatus, 'kind'>): boolean {
  return s.kind === 'lsp';
}

/** The name a person reads: a language server's own name, without its `lsp:` key prefix. */
export function displayName(s: Pick<ServerStatus, 'name' | 'kind'>): string {
  return isLanguageServer(s) ? lspName(s.name) : s.name;
}

/** The command that shows a server in detail: `/mcp NAME` or `/lsp NAME`, by the kind of its key. */
export function detailCommand(key: string): string {
  return serverKind(key) === 'lsp' ? `/lsp ${lspName(key)}` : `/mcp ${key}`;
}

/**
 * What a language server row shows after its state: its languages, then — while connected — how
 * many capabilities it announced and its pid (`typescript, javascript · 7 capabilities · pid 42`).
 */
export function languageServerFacts(s: Pick<ServerStatus, 'state' | 'languages' | 'capabilities' | 'pid'>): string {
  const facts = [(s.languages ?? []).join(', ') || 'no languages'];
  if (s.state === 'connected') facts.push(plural(s.capabilities?.length ?? 0, 'capability', 'capabilities'));
  if (s.pid !== undefined) facts.push(`pid ${s.pid}`);
  return facts.join(' · ');
}

/**
 * Whether a server's tools are offered: a connected one's, and an idle one's (decision 196),
 * listed from its record and callable — the first call starts it.
 */
export function listsTools(s: Pick<ServerStatus, 'state'>): boolean {
  return s.state === 'connected' || s.state === 'idle';
}

/** `3 tools · 1 prompt`, for a connected (or idle) server. */
export function listCounts(s: Pick<ServerStatus, 'tools' | 'prompts'>): string {
  return `${plural(s.tools.length, 'tool')} · ${plural(s.prompts.length, 'prompt')}`;
}

/** `2 withheld`, for a server whose changed tools wait for approval (decision 197); undefined for none. */
export function withheldCount(s: Pick<ServerStatus, 'withheld'>): string | undefined {
  const n = s.withheld?.length ?? 0;
  return n === 0 ? undefined : `${n} withheld`;
}

/** How long a removed server keeps a row of its own before it joins the one "removed" line (decision 262). */
export const REMOVED_COLLAPSE_MS = 60_000;

/**
 * The rows of a list and the removed servers folded away: a server removed from settings keeps
 * its row (`○ name  removed from settings`) for `afterMs` after it was removed — its last history
 * entry —, then joins one line that names them all. `nextAt`: when the next one folds, if any.
 */
export function foldRemoved<S extends Pick<ServerStatus, 'reason' | 'history'>>(
  servers: readonly S[],
  now: number,
  afterMs = REMOVED_COLLAPSE_MS,
): { rows: S[]; folded: S[]; nextAt?: number } {
  const rows: S[] = [];
  const folded: S[] = [];
  let nextAt: number | undefined;
  for (const s of servers) {
    const at = s.reason === 'removed' ? (s.history.at(-1)?.ts ?? 0) + afterMs : undefined;
    if (at === undefined || at > now) rows.push(s);
    else folded.push(s);
    if (at !== undefined && at > now) nextAt = Math.min(nextAt ?? at, at);
  }
  return nextAt === undefined ? { rows, folded } : { rows, folded, nextAt };
}
