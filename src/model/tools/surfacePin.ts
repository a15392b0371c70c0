import { canonicalJson } from '../canonicalJson.js';
import { getOwn, isPlainObject } from '../ownProperties.js';
import { sha256Hex } from '../sha256Hex.js';
import type { PromptInfo, ToolInfo } from '../types.js';
import type { ServerSurface, SurfaceChange } from './surfaceTypes.js';

/**
 * What is compared of a surface the user approved (decision 306): a digest per tool, per prompt
 * and of the `instructions` — small and bounded whatever the server lists. Resources, templates,
 * `serverInfo`, icons and `_meta` are not part of it: they are neither shown for approval nor
 * compared, so padding there never changes a pin or its size.
 */
export interface SurfacePin {
  tools: readonly PinnedItem[];
  /** The digest of the tools beyond {@link MAX_PINNED_ITEMS}, folded into one. */
  toolsRest?: string;
  prompts: readonly PinnedItem[];
  promptsRest?: string;
  /** The digest of the instructions; absent when there are none. */
  instructions?: string;
}

/** One tool or prompt: its name (or the digest of a long one, {@link pinnedName}) and the digest of what is approved of it. */
export interface PinnedItem {
  name: string;
  digest: string;
}

/** Items pinned one by one, per list; the rest are folded into one digest (any change there withholds them all). */
export const MAX_PINNED_ITEMS = 1000;

/** A name longer than this is pinned by its digest, so a pin's size does not follow the server's names. */
export const MAX_PINNED_NAME = 128;

/** What is withheld of a surface against a pin (own names), and whether its instructions are. */
export interface PinDifference {
  tools: ReadonlySet<string>;
  prompts: ReadonlySet<string>;
  instructions: boolean;
}

function pinnedName(name: string): string {
  return name.length <= MAX_PINNED_NAME ? name : `sha256:${sha256Hex(name)}`;
}

/** A tool as approved (decisions 210, 306): its name, title, description, schemas and annotations. */
function pinnedToolDigest(tool: ToolInfo): string {
  const { name, title, description, inputSchema, outputSchema, annotations } = tool;
  return sha256Hex(canonicalJson({ name, title, description, inputSchema, outputSchema, annotations }));
}

/** A prompt as approved: its name, title, description and arguments. */
function pinnedPromptDigest(prompt: PromptInfo): string {
  const { name, title, description, arguments: args } = prompt;
  return sha256Hex(canonicalJson({ name, title, description, arguments: args }));
}

const instructionsDigest = (instructions: string | undefined): string | undefined =>
  instructions === undefined || instructions === '' ? undefined : sha256Hex(instructions);

/** The items of a list in name order (by UTF-16 code unit, stable), each with its digest. */
function itemsOf<T extends { name: string }>(items: readonly T[], digest: (item: T) => string): { own: string; item: PinnedItem }[] {
  const sorted = [...items].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return sorted.map((item) => ({ own: item.name, item: { name: pinnedName(item.name), digest: digest(item) } }));
}

const restDigest = (rest: readonly PinnedItem[]): string | undefined => (rest.length === 0 ? undefined : sha256Hex(canonicalJson(rest)));

function pinList<T extends { name: string }>(items: readonly T[], digest: (item: T) => string): { head: PinnedItem[]; rest?: string } {
  const all = itemsOf(items, digest).map((entry) => entry.item);
  const rest = restDigest(all.slice(MAX_PINNED_ITEMS));
  return rest === undefined ? { head: all.slice(0, MAX_PINNED_ITEMS) } : { head: all.slice(0, MAX_PINNED_ITEMS), rest };
}

/** The pin of a surface: what the user approves of it (decision 306). */
export function pinOf(surface: ServerSurface): SurfacePin {
  const tools = pinList(surface.tools, pinnedToolDigest);
  const prompts = pinList(surface.prompts, pinnedPromptDigest);
  const pin: SurfacePin = { tools: tools.head, prompts: prompts.head };
  if (tools.rest !== undefined) pin.toolsRest = tools.rest;
  if (prompts.rest !== undefined) pin.promptsRest = prompts.rest;
  const instructions = instructionsDigest(surface.instructions);
  if (instructions !== undefined) pin.instructions = instructions;
  return pin;
}

/** SHA-256 of a pin's canonical JSON: equal pins, equal digests. */
export function pinDigest(pin: SurfacePin): string {
  return sha256Hex(canonicalJson(pin));
}

/**
 * Own names of the items of `now` that differ from the pin: new, changed, or (past
 * {@link MAX_PINNED_ITEMS}) among a folded rest that changed. The k-th item of a name is paired
 * with the k-th pinned one of that name (decision 211). A removed item is not among them.
 */
function changedItems<T extends { name: string }>(pinned: readonly PinnedItem[], pinnedRest: string | undefined, now: readonly T[], digest: (item: T) => string): Set<string> {
  const changed = new Set<string>();
  const items = itemsOf(now, digest);
  const expected = new Map<string, string[]>();
  for (const item of pinned) {
    const list = expected.get(item.name);
    if (list === undefined) expected.set(item.name, [item.digest]);
    else list.push(item.digest);
  }
  const seen = new Map<string, number>();
  for (const { own, item } of items.slice(0, MAX_PINNED_ITEMS)) {
    const index = seen.get(item.name) ?? 0;
    seen.set(item.name, index + 1);
    if (expected.get(item.name)?.[index] !== item.digest) changed.add(own);
  }
  const rest = items.slice(MAX_PINNED_ITEMS);
  if (restDigest(rest.map((entry) => entry.item)) !== pinnedRest) for (const { own } of rest) changed.add(own);
  return changed;
}

/** What of `now` differs from `pin`: the tools and prompts to withhold, and whether the instructions changed. */
export function pinDifference(pin: SurfacePin, now: ServerSurface): PinDifference {
  return {
    tools: changedItems(pin.tools, pin.toolsRest, now.tools, pinnedToolDigest),
    prompts: changedItems(pin.prompts, pin.promptsRest, now.prompts, pinnedPromptDigest),
    instructions: instructionsDigest(now.instructions) !== pin.instructions,
  };
}

/** Whether a difference withholds anything. */
export function withholdsAnything(difference: PinDifference): boolean {
  return difference.tools.size > 0 || difference.prompts.size > 0 || difference.instructions;
}

/** Everything of `now` withheld: no pin to compare with (missing, not written, not settled yet). */
export function withholdAll(now: ServerSurface): PinDifference {
  return { tools: new Set(now.tools.map((t) => t.name)), prompts: new Set(now.prompts.map((p) => p.name)), instructions: now.instructions !== undefined && now.instructions !== '' };
}

/**
 * The changes a pin shows when the approved text is no longer recorded (the surface record is a
 * cache, decision 307): each withheld item as `added` (its name was not pinned) or `definition`
 * (it was, with another digest), the instructions as changed, and removed names as `removed`.
 */
export function pinChanges(pin: SurfacePin, now: ServerSurface, difference: PinDifference): SurfaceChange[] {
  const changes: SurfaceChange[] = [];
  if (difference.instructions) changes.push({ kind: 'instructions', name: '', change: 'definition' });
  const list = (kind: 'tool' | 'prompt', pinned: readonly PinnedItem[], items: readonly { name: string }[], withheld: ReadonlySet<string>): void => {
    const pinnedNames = new Set(pinned.map((p) => p.name));
    const nowNames = new Set(items.map((i) => pinnedName(i.name)));
    for (const name of [...withheld].sort()) changes.push({ kind, name, change: pinnedNames.has(pinnedName(name)) ? 'definition' : 'added' });
    for (const name of [...pinnedNames].sort()) if (!nowNames.has(name)) changes.push({ kind, name, change: 'removed' });
  };
  list('tool', pin.tools, now.tools, difference.tools);
  list('prompt', pin.prompts, now.prompts, difference.prompts);
  return changes;
}

const isDigest = (value: unknown): value is string => typeof value === 'string' && /^[0-9a-f]{64}$/.test(value);

function itemListOf(value: unknown): PinnedItem[] | undefined {
  if (!Array.isArray(value) || value.length > MAX_PINNED_ITEMS) return undefined;
  const items: PinnedItem[] = [];
  for (const entry of value as unknown[]) {
    if (!isPlainObject(entry)) return undefined;
    const name = getOwn(entry, 'name');
    const digest = getOwn(entry, 'digest');
    if (typeof name !== 'string' || name.length > MAX_PINNED_NAME + 7 || !isDigest(digest)) return undefined;
    items.push({ name, digest });
  }
  return items;
}

/** A pin read back (the pin file), or undefined when anything about it is not well-formed. */
export function surfacePinOf(value: unknown): SurfacePin | undefined {
  if (!isPlainObject(value)) return undefined;
  const tools = itemListOf(getOwn(value, 'tools'));
  const prompts = itemListOf(getOwn(value, 'prompts'));
  if (tools === undefined || prompts === undefined) return undefined;
  const pin: SurfacePin = { tools, prompts };
  for (const key of ['toolsRest', 'promptsRest', 'instructions'] as const) {
    const digest = getOwn(value, key);
    if (digest === undefined) continue;
    if (!isDigest(digest)) return undefined;
    pin[key] = digest;
  }
  return pin;
}
