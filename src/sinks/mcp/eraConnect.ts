import { SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import type { Client, DiscoverResult, PriorDiscovery } from '@modelcontextprotocol/client';
import type { ServerIdentity } from '../../model/connection.js';
import type { EraVerdict } from '../../model/connection.js';
import { eraOfVersion } from '../../model/tools/eraVerdict.js';

/**
 * The era side of a connect (decision 380): the verdict a connect is given as the SDK takes it,
 * the verdict a connect found, and what a failed connect says of the era.
 */

/** A verdict as the SDK takes it for `connect({ prior })`. */
export function priorOf(verdict: EraVerdict): PriorDiscovery {
  return verdict.kind === 'legacy' ? { kind: 'legacy' } : { kind: 'modern', discover: verdict.discover as unknown as DiscoverResult };
}

/**
 * The revision a connected client negotiated, with the verdict behind it: the one it was given
 * (`known`, its date kept), else what its probe found, dated `now` (`found` is then true).
 */
export function negotiated(client: Client, known: EraVerdict | undefined, now: number): { protocol?: NonNullable<ServerIdentity['protocol']>; found: boolean } {
  const version = client.getNegotiatedProtocolVersion();
  if (version === undefined) return { found: false };
  const discover = client.getDiscoverResult();
  const verdict: EraVerdict = known ?? (discover === undefined ? { kind: 'legacy', decidedAt: now } : { kind: 'modern', discover: { ...discover }, decidedAt: now });
  return { protocol: { version, era: eraOfVersion(version), verdict }, found: known === undefined };
}

/**
 * What a failed connect says of the era: `forget` when it used a verdict (the next connect
 * probes), `legacy` when a stdio server ended while its era was probed (a 2025-era server that
 * exits on a request it does not know: the next connect skips the probe), else nothing — and
 * always nothing when authorization failed: that is no era evidence, and never leads to trying
 * the older era (fail closed).
 */
export function eraAfterFailure(
  error: unknown,
  known: EraVerdict | undefined,
  stdioEnded: boolean,
  client: Client,
): 'forget' | 'legacy' | undefined {
  if (isAuthorizationFailure(error)) return undefined;
  if (known !== undefined) return 'forget';
  return stdioEnded && client.getNegotiatedProtocolVersion() === undefined ? 'legacy' : undefined;
}

/** The SDK's typed refusals for want of authorization (a 401 or 403, its OAuth flow's): never era evidence. */
export function isAuthorizationFailure(error: unknown): boolean {
  if (error instanceof Error && (error.name === 'UnauthorizedError' || error.name === 'NeedsAuthorization' || error.name === 'InsufficientScopeError')) return true;
  return error instanceof SdkError && (error.code === SdkErrorCode.ClientHttpAuthentication || error.code === SdkErrorCode.ClientHttpForbidden);
}

/**
 * The failure behind a failed era probe, to be worded as the same failure of any other request:
 * the network error the SDK wraps ("fetch failed: connect ECONNREFUSED …"), or the body of the
 * HTTP error the server answered with (a 401 or 403 too), as the transport words a failed POST.
 */
export function probeFailureCause(error: unknown): unknown {
  if (!(error instanceof SdkError) || !error.message.startsWith('Version negotiation')) return error;
  const data = error.data as { cause?: unknown; text?: unknown } | undefined;
  if (data?.cause !== undefined) return data.cause;
  if (typeof data?.text === 'string' && data.text !== '') return new Error(`Error POSTing to endpoint: ${data.text}`);
  return error;
}
