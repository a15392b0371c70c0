import { join, resolve } from 'node:path';
import {
  EMPTY,
  combineLatest,
  concat,
  defer,
  distinctUntilChanged,
  filter,
  map,
  merge,
  of,
  pairwise,
  share,
  startWith,
  switchMap,
  type Observable,
} from 'rxjs';
import type { SourceSnapshot } from '../model/types.js';
import {
  fromSettingsFile,
  type SettingsFileDeps,
  type SettingsFileError,
  type SettingsFileEvent,
  type SettingsFileOk,
} from './fromSettingsFile.js';
import { getOwn, setOwn } from '../model/ownProperties.js';
import { isPathInside, readInsideDirectory } from '../files/readInsideDirectory.js';

/** The language server file at the root of an extension (as in a Claude Code plugin). */
export const EXTENSION_LSP_FILE = '.lsp.json';

/**
 * What one installed extension says: its snapshot (a first one once every file of it was read),
 * and its files' errors and recoveries. An `ok` also comes for a file the extension stopped
 * naming, whether or not it had failed: the receiver clears only what it saw fail.
 */
export type ExtensionEvent = { kind: 'content'; snapshot: SourceSnapshot } | SettingsFileError | SettingsFileOk;

type Content = Extract<SettingsFileEvent, { kind: 'content' }>;

const isContent = (event: SettingsFileEvent): event is Content => event.kind === 'content';

/** The extension's `lspServers` file is being switched: wait for its first read. */
const PENDING = 'pending';

/** What the file the manifest names says: its events, `undefined` when it names none, or {@link PENDING}. */
type Named = SettingsFileEvent | typeof PENDING | undefined;

/**
 * One extension directory as a source of scope `extension` (decision 156): the manifest's
 * `mcpServers`, and its language servers from `<dir>/.lsp.json` and the manifest's `lspServers`
 * — inline, or the relative path of a `.lsp.json`-format file inside the extension, read only
 * where its symlinks stay inside ({@link readInsideDirectory}). A name in both is the
 * manifest's. Every file is watched like a settings file: a broken one reports an error and
 * keeps its last good content. When the manifest names another file, the snapshot waits for it.
 *
 * ```
 * manifest    {m, lspServers:"a.json"}---------{m, lspServers:"b.json"}-------
 * .lsp.json   {x}-------------------------------------------------------------
 * a.json / b.json     {y}-----------------------------------{z}---------------
 * output      --------c(m; x,y)------------------ok(a.json)-c(m; x,z)---------
 * ```
 * Cold.
 */
export function fromExtension(dir: string, manifestName: string, deps: Omit<SettingsFileDeps, 'kind'> = {}): Observable<ExtensionEvent> {
  return defer(() => {
    const manifest$ = fromSettingsFile(join(dir, manifestName), 'extension', { ...deps, kind: 'manifest' }).pipe(share());
    const root$ = fromSettingsFile(join(dir, EXTENSION_LSP_FILE), 'extension', { ...deps, kind: 'lsp' }).pipe(share());
    const named$ = manifest$.pipe(
      filter(isContent),
      map((event) => namedLspFile(dir, event.raw)),
      distinctUntilChanged(),
      startWith(undefined),
      pairwise(),
      switchMap(([left, file]) =>
        concat(
          left === undefined ? EMPTY : of<Named>({ kind: 'ok', file: left }),
          of<Named>(PENDING),
          file === undefined
            ? of<Named>(undefined)
            : fromSettingsFile(file, 'extension', { ...deps, kind: 'lsp', readFile: readInsideDirectory(dir, deps.readFile) }),
        ),
      ),
      share(),
    );
    const notices$ = merge(manifest$, root$, named$).pipe(
      filter((event): event is SettingsFileError | SettingsFileOk => typeof event === 'object' && event.kind !== 'content'),
    );
    const snapshot$ = combineLatest([
      manifest$.pipe(filter(isContent)),
      root$.pipe(filter(isContent)),
      named$.pipe(filter((event): event is Content | typeof PENDING | undefined => typeof event !== 'object' || isContent(event))),
    ]).pipe(
      filter((latest): latest is [Content, Content, Content | undefined] => latest[2] !== PENDING),
      map(([manifest, root, named]): ExtensionEvent => {
        const fromManifest = (named ?? manifest).snapshot.lspServers;
        const lspServers = overlay(root.snapshot.lspServers ?? {}, fromManifest ?? {});
        const snapshot: SourceSnapshot = { ...manifest.snapshot, extensionPath: dir };
        if (Object.keys(lspServers).length > 0) snapshot.lspServers = lspServers;
        else delete snapshot.lspServers;
        return { kind: 'content', snapshot };
      }),
    );
    return merge(notices$, snapshot$);
  });
}

/**
 * The file the manifest's `lspServers` names (resolved), or undefined: inline servers, none, or
 * the root `.lsp.json`, which is read anyway. A path leading out of the extension never gets
 * here: the manifest's reader refuses it as a badly typed key.
 */
function namedLspFile(dir: string, manifest: Record<string, unknown>): string | undefined {
  const named = getOwn(manifest, 'lspServers');
  if (!isPathInside(named)) return undefined;
  const file = resolve(dir, named);
  return file === resolve(dir, EXTENSION_LSP_FILE) ? undefined : file;
}

/** `base` with `top`'s entries over it; either map itself when the other is empty, so an unchanged map keeps its identity. */
function overlay(base: Record<string, unknown>, top: Record<string, unknown>): Record<string, unknown> {
  if (Object.keys(top).length === 0) return base;
  if (Object.keys(base).length === 0) return top;
  const merged: Record<string, unknown> = {};
  for (const name of Object.keys(base)) setOwn(merged, name, base[name]);
  for (const name of Object.keys(top)) setOwn(merged, name, top[name]);
  return merged;
}
