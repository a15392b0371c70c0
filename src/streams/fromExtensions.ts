import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Observable, Subscription, from, switchMap } from 'rxjs';
import type { SourceSnapshot } from '../model/types.js';
import { isEditorArtifact } from './editorArtifacts.js';
import { fromSettingsFile, type SettingsFileDeps, type SettingsFileError } from './fromSettingsFile.js';
import { watchDirectory } from './watchDirectory.js';

/**
 * The installed extensions, each one source. `errors` are the problems raised since the previous
 * emission (a bad manifest, an unreadable extensions directory): events to report once, not state.
 */
export interface ExtensionsEvent {
  /** One snapshot per extension directory, sorted by directory name. */
  snapshots: SourceSnapshot[];
  errors: SettingsFileError[];
}

export interface ExtensionsDeps extends Omit<SettingsFileDeps, 'kind'> {
  /** Names of the directories (or symlinks to directories) in a directory; [] when it is missing. */
  listDirectories?: (dir: string) => Promise<string[]>;
}

async function listDirectoriesOnDisk(dir: string): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return [];
    throw error;
  }
  const checked = await Promise.all(
    names.map(async (name) => {
      try {
        // stat, not the dirent: `extensions link` installs a symlink to a directory.
        return (await stat(join(dir, name))).isDirectory() ? name : undefined;
      } catch {
        return undefined;
      }
    }),
  );
  return checked.filter((name): name is string => name !== undefined);
}

interface Installed {
  subscription: Subscription;
  snapshot: SourceSnapshot | undefined;
}

/**
 * Extensions installed under `extensionsDir`, live (SPEC §2): each `<dir>/<name>/<manifest>`
 * is a servers-only source of scope `extension`.
 *
 * ```
 * dirs      [a]-------[a,b]---------------[b]-----
 * manifests  a:{x}           b:{y}   b:broken
 * output    {a}--------------{a,b}---e----{b}-----     (e: same snapshots + the error)
 * ```
 *
 * Installing (a new directory) and uninstalling (the directory removed) are seen live; each
 * extension's manifest is watched like any settings file, so a bad manifest reports an error
 * and keeps that extension's last good servers (none, if it never parsed) — the others are not
 * touched. An emission waits until every listed extension has been read once, so a start or an
 * install never shows a half-read set. Cold.
 */
export function fromExtensions(
  extensionsDir: string,
  manifestName: string,
  deps: ExtensionsDeps = {},
): Observable<ExtensionsEvent> {
  const listDirectories = deps.listDirectories ?? listDirectoriesOnDisk;
  return new Observable<ExtensionsEvent>((subscriber) => {
    const installed = new Map<string, Installed>();
    let errors: SettingsFileError[] = [];
    let listed = false;

    const emitWhenComplete = (): void => {
      if (!listed) return;
      const names = [...installed.keys()].sort();
      const snapshots: SourceSnapshot[] = [];
      for (const name of names) {
        const snapshot = installed.get(name)!.snapshot;
        if (snapshot === undefined) return;
        snapshots.push(snapshot);
      }
      const raised = errors;
      errors = [];
      subscriber.next({ snapshots, errors: raised });
    };

    const install = (name: string): void => {
      const manifest = join(extensionsDir, name, manifestName);
      const entry: Installed = { subscription: new Subscription(), snapshot: undefined };
      installed.set(name, entry);
      entry.subscription.add(
        fromSettingsFile(manifest, 'extension', { ...deps, kind: 'servers' }).subscribe({
          next: (event) => {
            if (event.kind === 'content') entry.snapshot = event.snapshot;
            else errors.push(event);
            emitWhenComplete();
          },
          error: (error: unknown) => subscriber.error(error),
        }),
      );
    };

    const onListing = (names: readonly string[]): void => {
      const wanted = new Set(names.filter((name) => !isEditorArtifact(name)));
      let removed = false;
      for (const [name, entry] of installed) {
        if (wanted.has(name)) continue;
        entry.subscription.unsubscribe();
        installed.delete(name);
        removed = true;
      }
      let added = false;
      for (const name of wanted) {
        if (installed.has(name)) continue;
        install(name);
        added = true;
      }
      const first = !listed;
      listed = true;
      if (first || removed || added) emitWhenComplete();
    };

    const listing = watchDirectory(extensionsDir, (name) => !isEditorArtifact(name), deps)
      .pipe(
        switchMap(() =>
          from(
            listDirectories(extensionsDir).catch((error: unknown) => {
              errors.push({
                kind: 'error',
                file: extensionsDir,
                error: `${extensionsDir}: cannot list extensions (${error instanceof Error ? error.message : String(error)})`,
              });
              return [...installed.keys()];
            }),
          ),
        ),
      )
      .subscribe({ next: onListing, error: (error: unknown) => subscriber.error(error) });

    return () => {
      listing.unsubscribe();
      for (const entry of installed.values()) entry.subscription.unsubscribe();
      installed.clear();
    };
  });
}
