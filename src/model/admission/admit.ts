import { GATED_SCOPES, type AssembledServer, type DesiredState, type NotAllowedBy, type Reason } from '../types.js';
import { lspName, serverKind } from '../serverKeys.js';
import { nameMatcher } from '../settings/namePatterns.js';

/** The `detail` of a workspace or `.mcp.json` server in an untrusted folder. */
export const UNTRUSTED_IGNORED_DETAIL = 'ignored: folder not trusted – run `mcp-live trust` to read its settings';

/** Whether one server may connect, and if not, why (docs/contract.md, "Admission"). */
export type Admission =
  | { admitted: true }
  | { admitted: false; reason: Reason; notAllowedBy?: NotAllowedBy; detail?: string };

/**
 * Admission of one assembled server (docs/contract.md, "Admission"); the first rule that applies is
 * the reason: `settings_error` → `untrusted_folder` → `excluded` → `not_allowed` → `disabled` →
 * `rejected` → `pending_approval`. One more comes after all of them, once an admitted entry is
 * resolved: `untrusted_launch`, the user's own server held until the user trusts a folder that
 * could change what it runs (`launchHeld` in launchHold.ts, applied by `desiredServers`;
 * decision 303). `settings_error` (decision 51): a user or system settings file never parsed, so
 * its exclusions and folder trust are unknown — nothing connects until it does (`detail` says which
 * file and where). `disabled`: disabled for this session (`gating.sessionDisabled`, detail
 * "disabled for this session"), or `disabled: true` in the entry unless enabled for this session.
 *
 * The allow bound is the flag `--allowed-mcp-server-names` (`flagAllowed`) and the merged settings
 * `mcp.allowed` (`desired.gating.allowed`); when both are set a name must match both, so settings
 * can narrow inside the flag but never widen it. `notAllowedBy` names the flag whenever the flag
 * rejects the name (what the user would have to change first), else the settings.
 */
export function admit(
  name: string,
  server: AssembledServer,
  desired: DesiredState,
  flagAllowed?: readonly string[],
): Admission {
  return admission(desired, flagAllowed)(name, server);
}

/**
 * The rules of {@link admit} prepared once for a desired state: pattern lists compiled, the
 * rejected and pending names in sets, so admitting every server of a pass stays linear. It reads
 * only `gating`, `trusted` and `settingsError` of `desired`, when called here — so the
 * incremental desired state keeps one until those change.
 */
export function admission(
  desired: DesiredState,
  flagAllowed: readonly string[] | undefined,
): (name: string, server: AssembledServer) => Admission {
  const { gating, trusted, settingsError } = desired;
  const bounds = {
    mcp: kindBounds(gating.excluded, gating.allowed, flagAllowed),
    // Language servers (decision 147): their own `lsp.*` lists, by their own names; the flag names MCP servers only.
    lsp: kindBounds(gating.lspExcluded, gating.lspAllowed, undefined),
  };
  const rejected = new Set(gating.rejected);
  const pending = new Set(gating.pending);
  const sessionDisabled = new Set(gating.sessionDisabled);
  const sessionEnabled = new Set(gating.sessionEnabled);
  return (name, server) => {
    if (settingsError !== undefined) return { admitted: false, reason: 'settings_error', detail: settingsError };
    // A repository's own server in an untrusted folder: its file is not read at all (decision 260).
    if (!trusted) return GATED_SCOPES.has(server.scope) ? { admitted: false, reason: 'untrusted_folder', detail: UNTRUSTED_IGNORED_DETAIL } : { admitted: false, reason: 'untrusted_folder' };
    const kind = serverKind(name);
    const { excluded, inFlag, inSettings } = bounds[kind];
    const own = kind === 'lsp' ? lspName(name) : name;
    if (excluded(own)) return { admitted: false, reason: 'excluded' };
    if (inFlag !== undefined && !inFlag(own)) return { admitted: false, reason: 'not_allowed', notAllowedBy: 'flag' };
    if (inSettings !== undefined && !inSettings(own)) {
      return { admitted: false, reason: 'not_allowed', notAllowedBy: 'settings' };
    }
    // A session override decides `disabled` only: every rule above and below still applies.
    if (sessionDisabled.has(name)) return { admitted: false, reason: 'disabled', detail: SESSION_DISABLED };
    if (isDisabled(server.config) && !sessionEnabled.has(name)) return { admitted: false, reason: 'disabled' };
    if (GATED_SCOPES.has(server.scope)) {
      if (rejected.has(name)) return { admitted: false, reason: 'rejected' };
      if (pending.has(name)) return { admitted: false, reason: 'pending_approval' };
    }
    return { admitted: true };
  };
}

/** One kind's exclusion and allow bounds, compiled. */
function kindBounds(excluded: readonly string[] | undefined, allowed: readonly string[] | undefined, flagAllowed: readonly string[] | undefined) {
  return {
    // Case-insensitive: an exclusion can only deny more, so `BLOCKED-server` must not fail open.
    excluded: nameMatcher(excluded ?? [], { ignoreCase: true }),
    inFlag: flagAllowed === undefined ? undefined : nameMatcher(flagAllowed),
    inSettings: allowed === undefined ? undefined : nameMatcher(allowed),
  };
}

/** The words of a server disabled for this session, as `detail` of reason `disabled`. */
export const SESSION_DISABLED = 'disabled for this session';

/** `disabled: true` in the entry as written; the entry may be anything, valid or not. */
function isDisabled(config: unknown): boolean {
  return (
    config !== null &&
    typeof config === 'object' &&
    Object.hasOwn(config, 'disabled') &&
    (config as { disabled?: unknown }).disabled === true
  );
}

/**
 * {@link admit} for every server of the desired state. The result has a null prototype: a server
 * called `__proto__` is an ordinary key, and looking up a name that is not there (`toString`)
 * yields `undefined`, never an Object.prototype member.
 */
export function admitAll(desired: DesiredState, flagAllowed?: readonly string[]): Record<string, Admission> {
  const admissions = Object.create(null) as Record<string, Admission>;
  const admitOne = admission(desired, flagAllowed);
  for (const [name, server] of Object.entries(desired.servers)) {
    admissions[name] = admitOne(name, server);
  }
  return admissions;
}
