import type { ServerCapabilities } from 'vscode-languageserver-protocol';

/**
 * What a language server's `initialize` answer says, in the words a status shows, and the
 * answers the client gives from an entry's `settings` (decision 152).
 */

/**
 * The providers a server announced, one word each, sorted: `hoverProvider` → `hover`,
 * `definitionProvider` → `definition`, `diagnosticProvider` (pull diagnostics) → `diagnostics`.
 * A provider set to `false` (or nothing) is not one.
 */
export function capabilitySummary(capabilities: ServerCapabilities): string[] {
  const words: string[] = [];
  for (const [key, value] of Object.entries(capabilities)) {
    if (!key.endsWith('Provider') || value === undefined || value === null || value === false) continue;
    const word = key.slice(0, -'Provider'.length);
    words.push(word === 'diagnostic' ? 'diagnostics' : word);
  }
  return words.sort();
}

/**
 * The answer to one item of `workspace/configuration`: the whole `settings` without a section,
 * else the value at the dotted `section` (`python.analysis`), or `null` when there is none.
 * Settings are written nested (`{ "python": { "analysis": … } }`) or, as VS Code's settings
 * files write them, with dotted keys (`{ "python.analysis": … }`): at each level the longest
 * key that matches the rest of the path wins.
 */
export function settingsSection(settings: unknown, section: string | undefined): unknown {
  if (section === undefined || section === '') return settings ?? null;
  return lookup(settings, section.split('.')) ?? null;
}

function lookup(value: unknown, path: readonly string[]): unknown {
  if (path.length === 0) return value;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  for (let take = path.length; take > 0; take--) {
    const key = path.slice(0, take).join('.');
    if (!Object.hasOwn(value, key)) continue;
    const found = lookup((value as Record<string, unknown>)[key], path.slice(take));
    if (found !== undefined) return found;
  }
  return undefined;
}
