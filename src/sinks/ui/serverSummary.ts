import { lspName, serverKind } from '../../model/lspConfig.js';
import { reasonText } from '../../model/messages.js';
import type { ServerStatus } from '../../model/status.js';
import type { ServerState } from '../../model/types.js';

/** Ink colour names used by the list. */
export type Tone = 'green' | 'yellow' | 'red' | 'gray';

/** The icon and colour of a server's state (SPEC §9 "state icon"). */
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
    blocked: { icon: '⊘', color: s.reason === 'pending_approval' ? 'yellow' : 'gray' },
  };
  return icons[s.state];
}

/**
 * Why a server that is not connected has no tools, in words: the admission reason through
 * `reasonText` (the SPEC wording), the error text for a failure, else the state itself.
 * Undefined for a connected server.
 */
export function statusText(s: ServerStatus): string | undefined {
  if (s.state === 'connected') return undefined;
  if (s.reason !== undefined) return reasonText(s.reason, s.notAllowedBy, s.detail, s.kind ?? 'mcp');
  if (s.state === 'error' || s.state === 'needs_auth') return s.error ?? s.state;
  if (s.state === 'idle') return idleText(s);
  return s.state;
}

/**
 * Why an idle server has no process (decision 196), in words: "lazy — starts on first use", or
 * "stopped after 5 min idle"; with the error of its last process when it ended on its own.
 */
export function idleText(s: Pick<ServerStatus, 'idle' | 'idleTimeoutMs' | 'error'>): string {
  const why = s.idle === 'idle-timeout' && s.idleTimeoutMs !== undefined ? `stopped after ${duration(s.idleTimeoutMs)} idle` : 'lazy — starts on first use';
  return s.error === undefined ? why : `${why} (last process: ${s.error})`;
}

/** `300 ms`, `30 s`, `5 min`, `2 h`: a duration as a person says it, rounded. */
export function duration(ms: number): string {
  if (ms < 1_000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${Math.round(ms / 1_000)} s`;
  if (ms < 3_600_000) return `${Math.round(ms / 60_000)} min`;
  return `${Math.round(ms / 3_600_000)} h`;
}

/** Counts for the list footer. */
export interface ServerCounts {
  connected: number;
  /** Promptable: waiting for a decision. */
  needApproval: number;
  /** Real failures only: blocked servers (approval-skipped included) are never counted here. */
  errors: number;
  /** The first failed server's key, for the "view error logs with /mcp NAME" (or `/lsp NAME`) hint. */
  firstError?: string;
}

export function countServers(servers: readonly ServerStatus[]): ServerCounts {
  const counts: ServerCounts = { connected: 0, needApproval: 0, errors: 0 };
  for (const s of servers) {
    // An idle server is up as far as its tools go: the first call starts it (decision 196).
    if (s.state === 'connected' || s.state === 'idle') counts.connected += 1;
    if (s.reason === 'pending_approval') counts.needApproval += 1;
    if (s.state === 'error') {
      counts.errors += 1;
      counts.firstError ??= s.name;
    }
  }
  return counts;
}

/** Whether a status is a language server's (issue 14): the list gives those a section of their own. */
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

/** `3 tools · 1 prompt`, for a connected server. */
export function listCounts(s: Pick<ServerStatus, 'tools' | 'prompts'>): string {
  return `${plural(s.tools.length, 'tool')} · ${plural(s.prompts.length, 'prompt')}`;
}

export function plural(n: number, word: string, words = `${word}s`): string {
  return `${n} ${n === 1 ? word : words}`;
}
