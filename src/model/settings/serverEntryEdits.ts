import { isPlainObject } from '../ownProperties.js';
import { parseJsoncObject } from './parseJsonc.js';
import { JsoncEditError, removeJsoncProperty, setJsoncProperty } from './jsoncEdit.js';
import type { TrustRule } from '../types.js';

/**
 * The edits `mcp-live mcp add|remove`, `enable|disable --persist` and `trust|untrust` make, as
 * pure text → text functions over JSONC (comments and layout kept, see `setJsoncProperty`).
 * Each throws {@link JsoncEditError} — and the caller writes nothing — when the file does not
 * parse, `mcpServers` is not an object, the file is in VS Code's shape, or the edit does not apply
 * (a name that is not there).
 * `label` names the file in messages.
 */

/** The `mcpServers` of a settings-like text (empty text: none). */
export function serversIn(text: string, label: string): Record<string, unknown> {
  if (text.trim() === '') return {};
  const parsed = parseJsoncObject(text, label);
  if (!parsed.ok) throw new JsoncEditError(`${parsed.error}; fix it first`);
  const servers = parsed.value?.mcpServers;
  if (servers === undefined) {
    // VS Code's shape (decision 327): an `mcpServers` written beside its `servers` would hide them.
    if (isPlainObject(parsed.value?.servers)) {
      throw new JsoncEditError(`${label} is in VS Code's shape ({"servers": …}): edit its "servers" by hand; an "mcpServers" added beside them would hide them`);
    }
    return {};
  }
  if (!isPlainObject(servers)) throw new JsoncEditError(`${label}: "mcpServers" must be an object; fix it first`);
  return servers;
}

/** Adds `name`; an existing entry of that name is replaced only with `replace` (`--force`). */
export function addServerEntry(
  text: string,
  name: string,
  entry: Record<string, unknown>,
  { label, replace = false }: { label: string; replace?: boolean },
): { text: string; replaced: boolean } {
  const replaced = Object.hasOwn(serversIn(text, label), name);
  if (replaced && !replace) {
    throw new JsoncEditError(`"${name}" is already defined in ${label}; add --force to replace it`);
  }
  return { text: setJsoncProperty(text, ['mcpServers', name], entry, label), replaced };
}

/** Removes `name`; throws when the file does not define it. */
export function removeServerEntry(text: string, name: string, label: string): string {
  if (!Object.hasOwn(serversIn(text, label), name)) throw new JsoncEditError(`"${name}" is not defined in ${label}`);
  return removeJsoncProperty(text, ['mcpServers', name], label);
}

/**
 * Sets `disabled: true`, or — to enable — removes the key (absent means enabled, so the entry
 * reads as it did before it was ever disabled).
 */
export function setServerDisabled(text: string, name: string, disabled: boolean, label: string): string {
  const servers = serversIn(text, label);
  if (!Object.hasOwn(servers, name)) throw new JsoncEditError(`"${name}" is not defined in ${label}`);
  if (!isPlainObject(servers[name])) throw new JsoncEditError(`${label}: the entry "${name}" is not an object; fix it first`);
  return disabled
    ? setJsoncProperty(text, ['mcpServers', name, 'disabled'], true, label)
    : removeJsoncProperty(text, ['mcpServers', name, 'disabled'], label);
}

/** Sets the rule of `folder` (an absolute path) in a `trustedFolders.json` text. */
export function setTrustRule(text: string, folder: string, rule: TrustRule, label: string): string {
  return setJsoncProperty(text, [folder], rule, label);
}
