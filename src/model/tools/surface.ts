import { getOwn, isPlainObject } from '../ownProperties.js';
import { canonicalJson } from '../canonicalJson.js';
import type { ServerIdentity } from '../connection.js';
import { sha256Hex } from '../sha256Hex.js';
import { terminalSafe } from '../terminalText.js';
import type { PromptInfo, ServerLists, ToolInfo } from '../types.js';
import type { ServerSurface, SurfaceChange, SurfaceChangeKind } from './surfaceTypes.js';
import { pinDigest, pinOf } from './surfacePin.js';

export type { ServerIdentity, ServerLists };

/** At most this many entries in {@link diffSurfaces}' answer, the last of them then a count of the rest. */
export const MAX_SURFACE_CHANGES = 200;

/** A `before` / `after` text longer than this many characters (code points) is cut. */
export const MAX_CHANGE_TEXT = 400;

/** By UTF-16 code unit, as {@link canonicalJson} sorts keys: the same order on every machine and locale. */
function byKey<T>(items: readonly T[], key: (item: T) => string): T[] {
  // Array#sort is stable: items of one key (a server listing a name twice) keep the server's order.
  return [...items].sort((a, b) => {
    const x = key(a);
    const y = key(b);
    return x < y ? -1 : x > y ? 1 : 0;
  });
}

/**
 * The surface of a server from its lists and `initialize` answer: every item exactly as listed,
 * tools and prompts in name order, resources by `uri`, templates by `uriTemplate`, so that the
 * order a server happens to list in never counts as a change.
 */
export function surfaceOf(lists: ServerLists, identity?: ServerIdentity): ServerSurface {
  const surface: ServerSurface = {
    tools: byKey(lists.tools, (tool) => tool.name),
    prompts: byKey(lists.prompts, (prompt) => prompt.name),
    resources: byKey(lists.resources, (resource) => resource.uri),
    resourceTemplates: byKey(lists.resourceTemplates ?? [], (template) => template.uriTemplate),
  };
  if (identity?.instructions !== undefined) surface.instructions = identity.instructions;
  const info = identity?.info;
  if (info !== undefined) {
    surface.serverInfo = { name: info.name, version: info.version, ...(info.title === undefined ? {} : { title: info.title }) };
  }
  return surface;
}

/** The lists a surface was made of: a lazy server is listed from its record with no process. */
export function listsOf(surface: ServerSurface): ServerLists {
  return { tools: surface.tools, prompts: surface.prompts, resources: surface.resources, resourceTemplates: surface.resourceTemplates };
}

/** The `initialize` answer a surface keeps (its `serverInfo` and `instructions`), for a lazy server's status. */
export function identityOf(surface: ServerSurface): ServerIdentity {
  const identity: ServerIdentity = {};
  if (surface.serverInfo !== undefined) identity.info = surface.serverInfo;
  if (surface.instructions !== undefined) identity.instructions = surface.instructions;
  return identity;
}

/** SHA-256 of the surface's canonical JSON: equal for equal surfaces, whatever their key order. */
export function surfaceHash(surface: ServerSurface): string {
  return sha256Hex(canonicalJson(surface));
}

/**
 * What a user approves about one tool (decision 210): what the agent reads of it (`title`,
 * `description`), what it sends and gets back (`inputSchema`, `outputSchema`) and what it is
 * told of its effects (`annotations`). Icons, `_meta` and `execution` are not part of it: a new
 * icon withholds no tool.
 */
export function toolDigest(tool: ToolInfo): string {
  return sha256Hex(canonicalJson(approvedPartsOf(tool)));
}

function approvedPartsOf(tool: ToolInfo): Record<string, unknown> {
  return { title: tool.title, description: tool.description, inputSchema: tool.inputSchema, outputSchema: tool.outputSchema, annotations: tool.annotations };
}

/**
 * The hash a user approves a changed surface with: the server's config hash and the pin of the
 * surface (its tools, prompts and instructions, decision 306) together, so an approval of one
 * surface under one entry never covers another of either — and data the pin leaves out
 * (resources, `_meta`) never makes an approval stale.
 */
export function surfaceApprovalHash(configHash: string, surface: ServerSurface): string {
  return sha256Hex(`${configHash}\n${pinDigest(pinOf(surface))}`);
}

/** One item of each side under one name; a side is missing when the item was added or removed. */
interface Pair<T> {
  name: string;
  before?: T;
  after?: T;
}

/**
 * The k-th item called `name` of one list paired with the k-th of the other, in name order
 * (decision 211): a server that lists a name twice shows two tools, so a second `x` is an added
 * `x`, never hidden behind the first.
 */
function pairsOf<T extends { readonly name: string }>(before: readonly T[], after: readonly T[]): Pair<T>[] {
  const pairs = new Map<string, Pair<T>[]>();
  const slot = (name: string, index: number): Pair<T> => {
    let list = pairs.get(name);
    if (list === undefined) pairs.set(name, (list = []));
    while (list.length <= index) list.push({ name });
    return list[index]!;
  };
  const place = (items: readonly T[], side: 'before' | 'after'): void => {
    const seen = new Map<string, number>();
    for (const item of items) {
      const index = seen.get(item.name) ?? 0;
      seen.set(item.name, index + 1);
      slot(item.name, index)[side] = item;
    }
  };
  place(before, 'before');
  place(after, 'after');
  return byKey([...pairs.values()].flat(), (pair) => pair.name);
}

/**
 * Own names of the tools of `now` that are new or differ from the pinned ones by their
 * {@link toolDigest}: what is withheld until the user approves the new surface. A removed tool
 * is not among them — there is nothing left to withhold.
 */
export function changedTools(pinned: ServerSurface, now: ServerSurface): Set<string> {
  const changed = new Set<string>();
  for (const { name, before, after } of pairsOf(pinned.tools, now.tools)) {
    if (after === undefined) continue;
    if (before === undefined || toolDigest(before) !== toolDigest(after)) changed.add(name);
  }
  return changed;
}

/**
 * A text for a person (decision 212): terminal-safe on one line (a changed description can
 * never fake a line of the dialog), and past {@link MAX_CHANGE_TEXT} characters cut, with the
 * length of the whole. Characters are code points, counted after the escaping, so a cut never
 * splits a surrogate pair into a lone surrogate.
 */
export function changeText(text: string): string {
  const safe = terminalSafe(text);
  // At most that many code units is at most that many code points.
  if (safe.length <= MAX_CHANGE_TEXT) return safe;
  let count = 0;
  let cut = 0;
  for (const char of safe) {
    if (count < MAX_CHANGE_TEXT) cut += char.length;
    count += 1;
  }
  return count <= MAX_CHANGE_TEXT ? safe : `${safe.slice(0, cut)}… (${count.toLocaleString('en-US')} characters)`;
}

/** One aspect of an item: what is compared (canonical JSON) and what a person is shown of it. */
interface Aspect<T> {
  change: SurfaceChangeKind;
  key: (item: T) => string;
  text: (item: T, other: T) => string | undefined;
}

/**
 * The `description` aspect covers what is read of an item, its `title` with its description
 * (decision 210), so every difference {@link toolDigest} sees has an entry that shows it. The text
 * is the description alone while the title stays, else both as canonical JSON.
 */
function readAspect<T extends { title?: string; description?: string }>(): Aspect<T> {
  return {
    change: 'description',
    key: (item) => canonicalJson({ title: item.title, description: item.description }),
    text: (item, other) => (item.title === other.title ? item.description : canonicalJson({ title: item.title, description: item.description })),
  };
}

const jsonText = (value: unknown): string | undefined => (value === undefined ? undefined : canonicalJson(value));

const TOOL_ASPECTS: readonly Aspect<ToolInfo>[] = [
  readAspect<ToolInfo>(),
  {
    change: 'schema',
    key: (tool) => canonicalJson({ inputSchema: tool.inputSchema, outputSchema: tool.outputSchema }),
    text: (tool) => canonicalJson({ inputSchema: tool.inputSchema, outputSchema: tool.outputSchema }),
  },
  { change: 'annotations', key: (tool) => canonicalJson(tool.annotations), text: (tool) => jsonText(tool.annotations) },
];

const PROMPT_ASPECTS: readonly Aspect<PromptInfo>[] = [
  readAspect<PromptInfo>(),
  { change: 'schema', key: (prompt) => canonicalJson(prompt.arguments), text: (prompt) => jsonText(prompt.arguments) },
];

function entry(kind: SurfaceChange['kind'], name: string, change: SurfaceChangeKind, before: string | undefined, after: string | undefined): SurfaceChange {
  const result: SurfaceChange = { kind, name, change };
  if (before !== undefined) result.before = changeText(before);
  if (after !== undefined) result.after = changeText(after);
  return result;
}

/** What an added or removed item is shown by: its description, or all of it when it has none. */
const wholeText = (item: { description?: string }): string => item.description ?? canonicalJson(item);

function itemChanges<T extends { name: string; title?: string; description?: string }>(
  kind: 'tool' | 'prompt',
  before: readonly T[],
  after: readonly T[],
  aspects: readonly Aspect<T>[],
): SurfaceChange[] {
  const changes: SurfaceChange[] = [];
  for (const pair of pairsOf(before, after)) {
    if (pair.before === undefined) changes.push(entry(kind, pair.name, 'added', undefined, wholeText(pair.after!)));
    else if (pair.after === undefined) changes.push(entry(kind, pair.name, 'removed', wholeText(pair.before), undefined));
    else {
      for (const aspect of aspects) {
        if (aspect.key(pair.before) === aspect.key(pair.after)) continue;
        changes.push(entry(kind, pair.name, aspect.change, aspect.text(pair.before, pair.after), aspect.text(pair.after, pair.before)));
      }
    }
  }
  return changes;
}

/**
 * What changed from one surface to another, for the `surface-changed` event and the approval
 * dialog (decision 213): the instructions first, then tools, then prompts, each by name and within
 * a name `added` / `removed` or the aspects in the order description, schema, annotations; one entry per differing aspect, schemas and
 * annotations compared as canonical JSON (key order is no change). Resources and templates are
 * data, not instructions to the agent: they are recorded, not reported. Past
 * {@link MAX_SURFACE_CHANGES} entries the answer keeps the first ones and ends with
 * `{ kind: 'tool', name: '', change: 'description', after: '… and N more changes' }`.
 */
export function diffSurfaces(before: ServerSurface, after: ServerSurface): SurfaceChange[] {
  const changes: SurfaceChange[] = [];
  if ((before.instructions ?? '') !== (after.instructions ?? '')) {
    changes.push(entry('instructions', '', 'description', before.instructions, after.instructions));
  }
  changes.push(...itemChanges('tool', before.tools, after.tools, TOOL_ASPECTS));
  changes.push(...itemChanges('prompt', before.prompts, after.prompts, PROMPT_ASPECTS));
  if (changes.length <= MAX_SURFACE_CHANGES) return changes;
  const kept = changes.slice(0, MAX_SURFACE_CHANGES - 1);
  const more = changes.length - kept.length;
  kept.push({ kind: 'tool', name: '', change: 'description', after: `… and ${more.toLocaleString('en-US')} more changes` });
  return kept;
}

type Check = (value: unknown) => boolean;

const optional =
  (check: Check): Check =>
  (value) =>
    value === undefined || check(value);
const isString: Check = (value) => typeof value === 'string';
const isObject: Check = (value) => isPlainObject(value);
const isList =
  (check: Check): Check =>
  (value) =>
    Array.isArray(value) && value.every(check);

/** An object whose own members named in `fields` pass their checks (others are kept unchecked). */
const shaped =
  (fields: Readonly<Record<string, Check>>): Check =>
  (value) =>
    isPlainObject(value) && Object.entries(fields).every(([key, check]) => check(getOwn(value, key)));

const EXTRAS = { title: optional(isString), icons: optional(Array.isArray), _meta: optional(isObject) };
const isTool = shaped({ ...EXTRAS, name: isString, description: optional(isString), annotations: optional(isObject), execution: optional(isObject) });
const isPromptArgument = shaped({ name: isString, description: optional(isString), required: optional((v) => typeof v === 'boolean') });
const isPrompt = shaped({ ...EXTRAS, name: isString, description: optional(isString), arguments: optional(isList(isPromptArgument)) });
const isResource = shaped({
  ...EXTRAS,
  uri: isString,
  name: optional(isString),
  description: optional(isString),
  mimeType: optional(isString),
  size: optional((v) => typeof v === 'number' && Number.isFinite(v)),
  annotations: optional(isObject),
});
const isTemplate = shaped({ ...EXTRAS, uriTemplate: isString, name: optional(isString), description: optional(isString), mimeType: optional(isString), annotations: optional(isObject) });
const isSurface = shaped({
  tools: isList(isTool),
  prompts: isList(isPrompt),
  resources: isList(isResource),
  resourceTemplates: isList(isTemplate),
  instructions: optional(isString),
  serverInfo: optional(shaped({ name: isString, version: isString, title: optional(isString) })),
});

/**
 * Whether a value read back (the surface record file) has the shape of a {@link ServerSurface}:
 * every list a list of items with their required names, every field the model reads of the type
 * it expects. Schemas are not checked; they are data, compared canonically.
 */
export function isServerSurface(value: unknown): value is ServerSurface {
  return isSurface(value);
}
