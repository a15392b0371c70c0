import type { ResolvedServerConfig, ViewFields } from '../types.js';
import equal from 'fast-deep-equal';
import { approvalHash } from '../settings/approvalHash.js';
import { canonicalJson } from '../canonicalJson.js';
import { setsEqual } from '../setsEqual.js';
import { sha256Hex } from '../sha256Hex.js';

/**
 * How a server is reached, as one hash (docs/contract.md, "Fingerprint"): SHA-256 hex over the
 * canonical JSON of transport, command, args (ordered), cwd, env (sorted), url, headers (sorted),
 * timeout, connectTimeout, maxMessageBytes, the `oauth` block, the `headersHelper` command and
 * where it runs, `healthCheck` and `roots` — after variable expansion, so a changed secret, or an
 * extension that moved (`${extensionPath}`), reconnects. Both deadlines are in it because a
 * connection keeps the ones it was opened with: a changed deadline takes effect by reconnecting.
 * View fields are not in it: changing them re-filters in place. (`httpUrl` has been folded into
 * `url` by the resolver; the transport kind keeps the two apart.)
 */
export function fingerprint(resolved: ResolvedServerConfig): string {
  return sha256Hex(
    canonicalJson({
      transport: resolved.transport,
      command: resolved.command,
      args: resolved.args,
      cwd: resolved.cwd,
      env: resolved.env,
      url: resolved.url,
      headers: resolved.headers,
      timeout: resolved.timeout,
      connectTimeout: resolved.connectTimeout,
      // Like the deadlines, the cap is the connection's from its start (decision 182); absent, it is left out.
      maxMessageBytes: resolved.maxMessageBytes,
      // How a token is got decides what the server sees; `autoStart` only when the flow begins.
      oauth: resolved.oauth === undefined ? undefined : { ...resolved.oauth, autoStart: undefined },
      // Decisions 240, 241, 243: each is the connection's from its start (the helper's headers,
      // the ping timer, the capability negotiated in `initialize`); absent ones are left out, so an
      // entry without them keeps its fingerprint. The helper's output is not: it is fetched anew at
      // each connect, and a secret never belongs in a hash.
      headersHelper: resolved.headersHelper,
      healthCheck: resolved.healthCheck,
      roots: resolved.roots,
      // A language server (decision 148): how it is spoken to; its view (settings, routing…) is not in it.
      lsp:
        resolved.lsp === undefined
          ? undefined
          : {
              transport: resolved.lsp.transport,
              socket: resolved.lsp.socket,
              workspaceFolder: resolved.lsp.workspaceFolder,
              initializationOptions: resolved.lsp.initializationOptions,
            },
    }),
  );
}

/**
 * The fingerprint of an entry that fails validation: derived from the entry as written, so an
 * unchanged invalid entry keeps its identity across passes, and the `invalid:` prefix can never
 * equal a real fingerprint.
 */
export function invalidFingerprint(raw: unknown): string {
  return `invalid:${approvalHash(raw)}`;
}

/**
 * Whether two sets of view fields filter and present a server alike: tool lists compared as sets
 * (order does not change a filter); `excludeTools` absent ≡ `[]`; `includeTools` absent (all
 * tools) ≠ `[]` (no tools); `trust` absent ≡ `false`; `description` exactly.
 */
export function viewFieldsEqual(a: ViewFields, b: ViewFields): boolean {
  if (a === b) return true;
  return (
    optionalSetsEqual(a.includeTools, b.includeTools) &&
    setsEqual(a.excludeTools ?? [], b.excludeTools ?? []) &&
    (a.trust ?? false) === (b.trust ?? false) &&
    a.description === b.description &&
    equal(a.lsp, b.lsp)
  );
}

function optionalSetsEqual(a: readonly string[] | undefined, b: readonly string[] | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return setsEqual(a, b);
}
