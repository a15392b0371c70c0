import { defer, mergeMap, type Observable } from 'rxjs';
import { GATED_SCOPES, type LspSettings, type McpSettings, type Scope, type SourceSnapshot } from '../model/types.js';
import { cloneJson, getOwn, isPlainObject, jsonEqual, setOwn } from '../model/ownProperties.js';
import { registerDerived } from '../model/reconcile/recordLineage.js';
import { isPathInside } from '../files/readInsideDirectory.js';
import type { JsoncReadResult } from '../model/settings/parseJsonc.js';
import { fromVsCodeServers, isVsCodeShape, vscodeShapeNotes } from '../model/settings/vscodeServers.js';
import { readJsonc, type ReadJsoncDeps } from '../files/readJsonc.js';
import { rereadOnTick } from './rereadOnTick.js';
import { watchFile } from './watchFile.js';
import type { WatchDeps } from './watchDirectory.js';

/**
 * `settings`: a settings.json (`mcpServers`, `lspServers`, `mcp`, `lsp`, `security.folderTrust.enabled`).
 * `servers`: `.mcp.json` or a `--mcp-config` file (`mcpServers`, or VS Code's `servers`, decision 327).
 * `manifest`: an extension manifest (`mcpServers`; `lspServers` inline or as the relative path
 * of a `.lsp.json`-format file inside the extension, which the extension source reads).
 * `lsp`: a `.lsp.json`-format file (`<cwd>/.lsp.json`, `--lsp-config`, an extension's): the whole
 * file maps server names to entries; `{"lspServers": {…}}` is read as well (see {@link asLspServersFile}).
 */
export type SettingsFileKind = 'settings' | 'servers' | 'manifest' | 'lsp';

/** A problem with a file, or with one key of it (`key` set), reported as `settings-error`. */
export interface SettingsFileError {
  kind: 'error';
  file: string;
  error: string;
  line?: number;
  column?: number;
  /** The dot-joined key that was ignored, when the file parsed but a known key had a bad type. */
  key?: string;
}

export type SettingsFileEvent =
  | {
      kind: 'content';
      snapshot: SourceSnapshot;
      /** The file's content as parsed, with each badly typed known key at its last good value. */
      raw: Record<string, unknown>;
      /** Changed leaf keys (dot-joined) against the previous content; all of them at first. */
      changedKeys: string[];
    }
  | SettingsFileError
  | SettingsFileOk;

/** The file's errors are gone: it reads cleanly again (it parses, its known keys are well typed, or it is missing). */
export interface SettingsFileOk {
  kind: 'ok';
  file: string;
}

export interface SettingsFileDeps extends WatchDeps, ReadJsoncDeps {
  /** Default: `servers` for the project, cli and extension scopes, else `settings`. */
  kind?: SettingsFileKind;
}

const SERVERS_ONLY_SCOPES: ReadonlySet<Scope> = new Set<Scope>(['project', 'cli', 'extension']);

/** A known key and the type it must have; parents come before their children. */
interface KeyRule {
  path: readonly string[];
  check: (value: unknown) => boolean;
  expected: string;
}

const isStringList = (value: unknown): boolean =>
  Array.isArray(value) && value.every((item) => typeof item === 'string');

const SERVERS_RULE: KeyRule = {
  path: ['mcpServers'],
  check: isPlainObject,
  expected: 'an object of servers by name ({ "name": { … } })',
};

const LSP_SERVERS_RULE: KeyRule = {
  path: ['lspServers'],
  check: isPlainObject,
  expected: 'an object of language servers by name ({ "name": { … } })',
};

const RULES: Readonly<Record<SettingsFileKind, readonly KeyRule[]>> = {
  servers: [SERVERS_RULE],
  manifest: [
    SERVERS_RULE,
    {
      path: ['lspServers'],
      check: (v) => isPlainObject(v) || isPathInside(v),
      expected: 'an object of language servers by name, or the relative path of a .lsp.json file inside the extension',
    },
  ],
  lsp: [LSP_SERVERS_RULE],
  settings: [
    SERVERS_RULE,
    LSP_SERVERS_RULE,
    { path: ['mcp'], check: isPlainObject, expected: 'an object' },
    { path: ['mcp', 'allowed'], check: isStringList, expected: 'a list of server names (["a", "b"])' },
    { path: ['mcp', 'excluded'], check: isStringList, expected: 'a list of server names (["a", "b"])' },
    { path: ['mcp', 'serverCommand'], check: (v) => typeof v === 'string', expected: 'a string' },
    { path: ['mcp', 'lazy'], check: (v) => typeof v === 'boolean', expected: 'a boolean' },
    { path: ['mcp', 'pinTools'], check: (v) => v === 'strict' || v === 'report', expected: '"strict" or "report"' },
    { path: ['lsp'], check: isPlainObject, expected: 'an object' },
    { path: ['lsp', 'allowed'], check: isStringList, expected: 'a list of language server names (["a", "b"])' },
    { path: ['lsp', 'excluded'], check: isStringList, expected: 'a list of language server names (["a", "b"])' },
    { path: ['security'], check: isPlainObject, expected: 'an object' },
    { path: ['security', 'folderTrust'], check: isPlainObject, expected: 'an object' },
    { path: ['security', 'folderTrust', 'enabled'], check: (v) => typeof v === 'boolean', expected: 'true or false' },
  ],
};

/**
 * One settings-like file as a stream of what it says (docs/contract.md, "Reading a file", "Watching").
 *
 * ```
 * file      {a}----{a}(reformatted)----{broken----{a,b}------{a,b, mcpServers: []}
 * output    c(a)-----------------------e----------c(b)------e(mcpServers)
 * ```
 *
 * Each tick of {@link watchFile} reads the file again, one read at a time ({@link rereadOnTick}).
 * - A file that does not parse: an `error`, and the last good content stays (no `content`).
 *   If there was none yet, an empty content follows once, so every source has a first value;
 *   for a settings file it is marked `broken` (admission fails closed on it, decision 51) until a
 *   read parses with every admission key (`mcp…`, `security…`) of the right type.
 * - A missing file: an empty source (`servers: {}`), not an error.
 * - A known key of the wrong type (`mcpServers: []`, `mcp.allowed: "a"`): an `error` naming
 *   the key; that key keeps its last good value (at the very first read: absent, except
 *   `mcp.allowed` and `lsp.allowed`, which fall back to `[]`, deny all — bad input never widens admission);
 *   the rest of the file applies.
 * - Content equal to the last (formatting, comments, the same bytes, our own writes): nothing.
 * Cold: each subscription watches and remembers on its own.
 */
export function fromSettingsFile(
  path: string,
  scope: Scope,
  deps: SettingsFileDeps = {},
): Observable<SettingsFileEvent> {
  const kind = deps.kind ?? (SERVERS_ONLY_SCOPES.has(scope) ? 'servers' : 'settings');
  return defer(() => {
    const state: FileState = {
      lastRaw: undefined,
      emitted: undefined,
      hadGoodRead: false,
      broken: undefined,
      admissionKnown: false,
      parseError: undefined,
      failing: false,
      lastRawFailing: false,
    };
    return watchFile(path, deps).pipe(
      rereadOnTick(() => readJsonc(path, deps), deps.onActivity),
      mergeMap((result) => nextEvents(state, result, { path, scope, kind })),
    );
  });
}

interface FileState {
  /** The last content that parsed, as parsed. */
  lastRaw: Record<string, unknown> | undefined;
  /** The content last emitted (bad keys at their last good value). */
  emitted: Record<string, unknown> | undefined;
  /** Whether any read parsed (a missing file counts) — else `emitted` is the empty stand-in. */
  hadGoodRead: boolean;
  /** What the last emitted snapshot says in `broken`. */
  broken: string | undefined;
  /** Whether a read ever had every admission key readable (settings only; a missing file counts). */
  admissionKnown: boolean;
  /**
   * The read error last reported, until a read parses: the same error again (the watcher's
   * second read of one save, decision 28, or the same broken bytes saved again) is not news.
   */
  parseError: string | undefined;
  /** Whether an error was reported and nothing has cleared it yet (then a clean read says `ok`). */
  failing: boolean;
  /** Whether `lastRaw` had a badly typed key: returning to it brings its errors back. */
  lastRawFailing: boolean;
}

/**
 * The keys admission depends on: while a settings file has never given them whole, it is
 * `broken` (fail closed, decision 51) instead of ignoring them, which would widen admission.
 */
const ADMISSION_KEYS: ReadonlySet<string> = new Set([
  'mcp',
  'mcp.allowed',
  'mcp.excluded',
  'lsp',
  'lsp.allowed',
  'lsp.excluded',
  'security',
  'security.folderTrust',
  'security.folderTrust.enabled',
]);

interface FileInfo {
  path: string;
  scope: Scope;
  kind: SettingsFileKind;
}

function nextEvents(state: FileState, result: JsoncReadResult, info: FileInfo): SettingsFileEvent[] {
  if (!result.ok) {
    const error: SettingsFileError = { kind: 'error', file: info.path, error: result.error };
    if (result.line !== undefined) error.line = result.line;
    if (result.column !== undefined) error.column = result.column;
    const reported: SettingsFileEvent[] = result.error === state.parseError ? [] : [error];
    state.parseError = result.error;
    state.failing = true;
    if (state.emitted !== undefined) return reported;
    state.emitted = {};
    state.broken = info.kind === 'settings' ? result.error : undefined;
    return [...reported, contentEvent({}, [], info, state.broken)];
  }
  state.parseError = undefined;

  const raw = info.kind === 'lsp' ? asLspServersFile(result.value ?? {}) : (result.value ?? {});
  if (state.lastRaw !== undefined && jsonEqual(raw, state.lastRaw)) return cleared(state, info, state.lastRawFailing);
  state.lastRaw = raw;

  // VS Code's shape (decision 327): its `servers` read as the `mcpServers` they mean.
  const vscode = SERVERS_FILE_SCOPES.has(info.scope) && info.kind === 'servers';
  const read = vscode && isVsCodeShape(raw) ? asMcpServersFile(raw) : raw;
  const { effective, errors, problems } = keepLastGoodKeys(read, state, info);
  const foreign = foreignFormatError(read, info);
  if (foreign !== undefined) errors.push(foreign);
  if (vscode) for (const note of vscodeShapeNotes(info.path, raw)) errors.push({ kind: 'error', file: info.path, ...note });
  state.hadGoodRead = true;
  const admissionProblem = problems.find((p) => ADMISSION_KEYS.has(p.key));
  if (info.kind === 'settings' && admissionProblem === undefined) state.admissionKnown = true;
  const broken = info.kind === 'settings' && !state.admissionKnown ? admissionProblem?.text : undefined;
  state.lastRawFailing = errors.length > 0;
  const events: SettingsFileEvent[] = [...errors, ...cleared(state, info, errors.length > 0)];
  if (state.emitted !== undefined && jsonEqual(effective, state.emitted) && broken === state.broken) return events;
  const changedKeys = changedLeafKeys(state.emitted ?? {}, effective);
  keepUnchangedServers(state.emitted, effective);
  state.emitted = effective;
  state.broken = broken;
  events.push(contentEvent(effective, changedKeys, info, broken));
  return events;
}

/**
 * A `.lsp.json`-format file as `{ lspServers: {…} }`, so the rest of the reader treats it like
 * the `lspServers` key of a settings file (type check, last good value, entry identity). The file
 * is the map itself (Claude Code plugins' format); a file with an own `lspServers` key is that
 * key's map instead (a plugin.json or a settings-style file given to `--lsp-config`), its other
 * keys ignored. Keys beginning with `$` (`$schema`) are not servers.
 */
function asLspServersFile(raw: Record<string, unknown>): Record<string, unknown> {
  const file: Record<string, unknown> = {};
  if (Object.hasOwn(raw, 'lspServers')) {
    setOwn(file, 'lspServers', getOwn(raw, 'lspServers'));
    return file;
  }
  const servers: Record<string, unknown> = {};
  for (const name of Object.keys(raw)) if (!name.startsWith('$')) setOwn(servers, name, raw[name]);
  setOwn(file, 'lspServers', servers);
  return file;
}

/** A servers file in VS Code's shape as ours: `mcpServers` from its `servers`; `inputs` is not read. */
function asMcpServersFile(raw: Record<string, unknown>): Record<string, unknown> {
  const file: Record<string, unknown> = {};
  for (const key of Object.keys(raw)) if (key !== 'servers' && key !== 'inputs') setOwn(file, key, getOwn(raw, key));
  setOwn(file, 'mcpServers', fromVsCodeServers(getOwn(raw, 'servers') as Record<string, unknown>));
  return file;
}

/**
 * Each `mcpServers` and `lspServers` entry deep-equal to the one emitted last becomes that very
 * object again, so an entry nobody edited keeps its identity across re-reads and a pass skips it
 * at the cost of a comparison (decision 102: the incremental desired state keys its results on it).
 */
function keepUnchangedServers(previous: Record<string, unknown> | undefined, effective: Record<string, unknown>): void {
  for (const key of ['mcpServers', 'lspServers']) keepUnchangedEntries(previous, effective, key);
}

function keepUnchangedEntries(previous: Record<string, unknown> | undefined, effective: Record<string, unknown>, key: string): void {
  const before = previous === undefined ? undefined : getOwn(previous, key);
  const after = getOwn(effective, key);
  if (!isPlainObject(before) || !isPlainObject(after) || before === after) return;
  const changed: string[] = [];
  for (const name of Object.keys(after)) {
    if (Object.hasOwn(before, name) && jsonEqual(before[name], after[name])) setOwn(after, name, before[name]);
    else changed.push(name);
  }
  for (const name of Object.keys(before)) if (!Object.hasOwn(after, name)) changed.push(name);
  // …and says which did change, so a pass looks at those alone (neither map changes after this).
  registerDerived(after, before, changed);
}

/** Scopes whose file is nothing but an `mcpServers` map (an extension manifest has other keys). */
const SERVERS_FILE_SCOPES: ReadonlySet<Scope> = new Set<Scope>(['project', 'cli']);

/** What a top-level key found instead of `mcpServers` suggests the file was written for. */
const FOREIGN_FORMATS: Readonly<Record<string, string>> = {
  servers: "VS Code's format (.vscode/mcp.json), whose \"servers\" must be an object?",
  mcp: "VS Code's settings format?",
};

/**
 * A `.mcp.json` or `--mcp-config` file with keys but no `mcpServers` was written for another
 * client (`{"mcp": {"servers": …}}`, VS Code's `{"servers": …}` when that is no object — an
 * object is read, decision 327): loading it as empty would hide every server it means without a
 * word. The error names the keys found and the one expected; the file still counts as an empty
 * source. `{}` and `$schema`-only files are fine.
 */
function foreignFormatError(raw: Record<string, unknown>, info: FileInfo): SettingsFileError | undefined {
  if (info.kind !== 'servers' || !SERVERS_FILE_SCOPES.has(info.scope) || Object.hasOwn(raw, 'mcpServers')) return undefined;
  const found = Object.keys(raw).filter((key) => !key.startsWith('$'));
  if (found.length === 0) return undefined;
  const hint = found.map((key) => getOwn(FOREIGN_FORMATS, key)).find((h): h is string => typeof h === 'string');
  const names = found.map((key) => JSON.stringify(key)).join(', ');
  return {
    kind: 'error',
    file: info.path,
    key: 'mcpServers',
    error: `${info.path}: no "mcpServers" object; found ${names}${hint === undefined ? ';' : ` — ${hint}`} mcp-live reads {"mcpServers": {…}}`,
  };
}

/** `ok` when the file was failing and is not any more (`failingNow` false): once per recovery. */
function cleared(state: FileState, info: FileInfo, failingNow: boolean): SettingsFileEvent[] {
  const wasFailing = state.failing;
  state.failing = failingNow;
  return wasFailing && !failingNow ? [{ kind: 'ok', file: info.path }] : [];
}

/** A copy of `raw` in which every badly typed known key is back at its last good value. */
function keepLastGoodKeys(
  raw: Record<string, unknown>,
  state: FileState,
  info: FileInfo,
): { effective: Record<string, unknown>; errors: SettingsFileError[]; problems: { key: string; text: string }[] } {
  const effective = cloneJson(raw);
  const errors: SettingsFileError[] = [];
  const problems: { key: string; text: string }[] = [];
  for (const rule of RULES[info.kind]) {
    const value = getPath(effective, rule.path);
    if (value === undefined || rule.check(value)) continue;
    const key = rule.path.join('.');
    let fallback = state.emitted === undefined ? undefined : getPath(state.emitted, rule.path);
    if (!state.hadGoodRead && (key === 'mcp.allowed' || key === 'lsp.allowed')) fallback = [];
    const kept =
      fallback === undefined
        ? 'ignoring it'
        : state.hadGoodRead
          ? 'keeping its last good value'
          : 'allowing no server until it is fixed';
    const problem = `${info.path}: "${key}" must be ${rule.expected}, found ${describeType(value)}`;
    problems.push({ key, text: problem });
    errors.push({ kind: 'error', file: info.path, key, error: `${problem}; ${kept}` });
    setPath(effective, rule.path, cloneJson(fallback));
  }
  if (GATED_SCOPES.has(info.scope)) errors.push(...capGatedEntries(effective, state, info));
  return { effective, errors, problems };
}

/**
 * The most entries a repository's file (`.mcp.json`, `.lsp.json`, the workspace settings) may give
 * in one of `mcpServers` and `lspServers` (decision 173): every one of them is a review the user
 * is asked for, so far more than anyone reviews is a flood, not a configuration.
 */
export const MAX_GATED_ENTRIES = 5_000;

/**
 * A gated file's server map over {@link MAX_GATED_ENTRIES} is refused whole, as a badly typed key
 * is: back at its last good value (its entries as last read, still under their approvals), or at
 * none before the file ever gave one. Never a first 5,000: which entries count would be the
 * file's choice, and a partial set is a set nobody wrote.
 */
function capGatedEntries(effective: Record<string, unknown>, state: FileState, info: FileInfo): SettingsFileError[] {
  const errors: SettingsFileError[] = [];
  for (const key of info.kind === 'servers' ? ['mcpServers'] : info.kind === 'lsp' ? ['lspServers'] : ['mcpServers', 'lspServers']) {
    const servers = getOwn(effective, key);
    if (!isPlainObject(servers)) continue;
    const count = Object.keys(servers).length;
    if (count <= MAX_GATED_ENTRIES) continue;
    const fallback = state.emitted === undefined ? undefined : getOwn(state.emitted, key);
    const before = isPlainObject(fallback) ? Object.keys(fallback).length : 0;
    const kept = before === 0 ? 'none of its servers is read until it has at most that many' : `keeping its last good value (${before.toLocaleString('en-US')} entries)`;
    const what = info.kind === 'lsp' ? 'language servers' : `entries in "${key}"`;
    errors.push({
      kind: 'error',
      file: info.path,
      key,
      error: `${info.path}: ${count.toLocaleString('en-US')} ${what}; a ${info.scope} file may give at most ${MAX_GATED_ENTRIES.toLocaleString('en-US')}, each needing your approval; ${kept}`,
    });
    setPath(effective, [key], cloneJson(fallback));
  }
  return errors;
}

function contentEvent(
  effective: Record<string, unknown>,
  changedKeys: string[],
  info: FileInfo,
  broken: string | undefined,
): SettingsFileEvent {
  const servers = getOwn(effective, 'mcpServers');
  const snapshot: SourceSnapshot = {
    scope: info.scope,
    file: info.path,
    servers: isPlainObject(servers) ? servers : {},
  };
  if (broken !== undefined) snapshot.broken = broken;
  if (info.kind !== 'servers') {
    const lspServers = getOwn(effective, 'lspServers');
    if (isPlainObject(lspServers)) snapshot.lspServers = lspServers;
    else if (info.kind === 'lsp') snapshot.lspServers = {};
  }
  if (info.kind === 'settings') {
    const mcp = getOwn(effective, 'mcp');
    if (isPlainObject(mcp)) snapshot.mcp = pickMcpSettings(mcp);
    const lsp = getOwn(effective, 'lsp');
    if (isPlainObject(lsp)) snapshot.lsp = pickLspSettings(lsp);
    const enabled = getPath(effective, ['security', 'folderTrust', 'enabled']);
    if (typeof enabled === 'boolean') snapshot.folderTrustEnabled = enabled;
  }
  return { kind: 'content', snapshot, raw: effective, changedKeys };
}

function pickMcpSettings(mcp: Record<string, unknown>): McpSettings {
  const picked: McpSettings = {};
  const allowed = getOwn(mcp, 'allowed');
  const excluded = getOwn(mcp, 'excluded');
  const serverCommand = getOwn(mcp, 'serverCommand');
  if (isStringList(allowed)) picked.allowed = allowed as string[];
  if (isStringList(excluded)) picked.excluded = excluded as string[];
  if (typeof serverCommand === 'string') picked.serverCommand = serverCommand;
  const lazy = getOwn(mcp, 'lazy');
  if (typeof lazy === 'boolean') picked.lazy = lazy;
  const pinTools = getOwn(mcp, 'pinTools');
  if (pinTools === 'strict' || pinTools === 'report') picked.pinTools = pinTools;
  return picked;
}

function pickLspSettings(lsp: Record<string, unknown>): LspSettings {
  const picked: LspSettings = {};
  const allowed = getOwn(lsp, 'allowed');
  const excluded = getOwn(lsp, 'excluded');
  if (isStringList(allowed)) picked.allowed = allowed as string[];
  if (isStringList(excluded)) picked.excluded = excluded as string[];
  return picked;
}

function getPath(object: Record<string, unknown>, path: readonly string[]): unknown {
  let current: unknown = object;
  for (const key of path) {
    if (!isPlainObject(current)) return undefined;
    current = getOwn(current, key);
  }
  return current;
}

/** Sets (or, for undefined, deletes) a key whose parents exist. */
function setPath(object: Record<string, unknown>, path: readonly string[], value: unknown): void {
  const parent = getPath(object, path.slice(0, -1));
  const key = path[path.length - 1]!;
  if (!isPlainObject(parent)) return;
  if (value === undefined) delete parent[key];
  else setOwn(parent, key, value);
}

function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'an object';
  return `a ${typeof value} (${JSON.stringify(value)})`;
}

/**
 * The leaf keys (dot-joined) whose values differ. Objects are walked; arrays and scalars are
 * leaves; an object that appears, disappears or empties counts as its own key when it has no
 * keys; a value that turns into an object or back counts as well.
 */
function changedLeafKeys(before: Record<string, unknown>, after: Record<string, unknown>): string[] {
  const out: string[] = [];
  diffInto(before, after, '', out);
  return out;
}

function diffInto(before: unknown, after: unknown, path: string, out: string[]): void {
  if (jsonEqual(before, after)) return;
  const beforeIsObject = isPlainObject(before);
  const afterIsObject = isPlainObject(after);
  if (!beforeIsObject && !afterIsObject) {
    out.push(path);
    return;
  }
  const typeChanged = (before !== undefined && !beforeIsObject) || (after !== undefined && !afterIsObject);
  if (typeChanged && path !== '') out.push(path);
  const keys = new Set([...(beforeIsObject ? Object.keys(before) : []), ...(afterIsObject ? Object.keys(after) : [])]);
  if (keys.size === 0 && !typeChanged && path !== '') out.push(path);
  for (const key of keys) {
    diffInto(
      beforeIsObject ? getOwn(before, key) : undefined,
      afterIsObject ? getOwn(after, key) : undefined,
      path === '' ? key : `${path}.${key}`,
      out,
    );
  }
}
