import { lstat, readdir, stat } from 'node:fs/promises';
import { dirname, join, sep } from 'node:path';
import { Observable, Subscription, defer, finalize, from } from 'rxjs';
import { foreignManifests, foreignManifestWarning } from '../model/settings/extensionManifests.js';
import type { SourceSnapshot } from '../model/types.js';
import { isEditorArtifact } from '../model/editorArtifacts.js';
import { fromExtension } from './fromExtension.js';
import type { SettingsFileDeps, SettingsFileError } from './fromSettingsFile.js';
import { setOwn } from '../model/ownProperties.js';
import { rereadOnTick } from './rereadOnTick.js';
import { watchDirectory } from './watchDirectory.js';

/**
 * The installed extensions, each one source. `errors` are the problems raised since the previous
 * emission (a bad manifest, an unreadable extensions directory): events to report once, not state.
 */
export interface ExtensionsEvent {
  /**
   * One snapshot per extension directory, first installed first (install time, then directory
   * name). A server name is in one snapshot only: the first installed extension's.
   */
  snapshots: SourceSnapshot[];
  errors: SettingsFileError[];
  /**
   * Files whose error is gone since the previous emission (a manifest that parses again, or whose
   * extension was uninstalled; the extensions directory listed again): each `settings-ok` once.
   */
  cleared: string[];
  /**
   * Warnings new since the previous emission: a later extension's server ignored, naming both;
   * an extension of another client (its manifest, not the profile's) that is not read.
   */
  warnings: string[];
}

export interface ExtensionsDeps extends Omit<SettingsFileDeps, 'kind'> {
  /** Names of the directories (or symlinks to directories) in a directory; [] when it is missing. */
  listDirectories?: (dir: string) => Promise<string[]>;
  /** When the extension at this path was installed, in ms (default {@link installTimeOnDisk}). */
  installTime?: (path: string) => Promise<number>;
  /** Whether a path exists (not following a final symlink; default `lstat`). */
  exists?: (path: string) => Promise<boolean>;
}

/**
 * When an extension was installed: the birth time of its entry in the extensions directory, or
 * its ctime where the filesystem reports no birth time. `lstat`: a linked extension was installed
 * when the link was made, not when its target was. Both survive restarts and manifest edits
 * (birth time never moves); ctime only moves forward and cannot be set back by anyone, while an
 * mtime can be (`cp -a`, `tar`, `touch -d`) — so no later install can claim to be earlier.
 * Unreadable (just removed): last.
 */
export async function installTimeOnDisk(path: string): Promise<number> {
  try {
    const info = await lstat(path);
    return info.birthtimeMs > 0 ? info.birthtimeMs : info.ctimeMs;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
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

async function existsOnDisk(path: string): Promise<boolean> {
  return lstat(path).then(
    () => true,
    () => false,
  );
}

/**
 * The warning for an extension directory without the profile's manifest and with another
 * client's (decision 253), or null. Looked at on each read of the manifest: when the extension
 * is installed (copied in), and whenever its manifest changes.
 */
async function foreignManifestOf(extensionsDir: string, name: string, manifest: string, exists: (path: string) => Promise<boolean>): Promise<string | null> {
  const dir = join(extensionsDir, name);
  if (await exists(join(dir, manifest))) return null;
  for (const found of foreignManifests(manifest)) {
    if (!(await exists(join(dir, found.manifest)))) continue;
    const otherDir = join(dirname(dirname(extensionsDir)), `.${found.profile}`, 'extensions');
    return foreignManifestWarning({ extension: name, dir, manifest, found, otherDir });
  }
  return null;
}

interface Installed {
  subscription: Subscription;
  snapshot: SourceSnapshot | undefined;
  /** Read once when the directory is first seen, so an order never changes while it stays installed. */
  installedAt: number | undefined;
  /** The warning for another client's manifest in place of ours, null for none; undefined while it is looked for. */
  foreign: string | null | undefined;
  /** Counts the looks: only the latest one's answer is kept. */
  looks: number;
}

/**
 * Between extensions the first installed keeps a server name (decisions 58 and 156), for MCP and language
 * servers alike (each kind its own names): `extensions` in install order, each server name
 * dropped from every later one. Returns the snapshots (an extension without conflicts keeps its
 * snapshot object) and the conflicts by key.
 */
function firstInstalledWins(
  extensions: readonly { name: string; snapshot: SourceSnapshot }[],
): { snapshots: SourceSnapshot[]; conflicts: Map<string, string> } {
  const mcpOwners = new Map<string, string>();
  const lspOwners = new Map<string, string>();
  const conflicts = new Map<string, string>();
  const snapshots = extensions.map(({ name, snapshot }) => {
    const servers = keepFirstInstalled(snapshot.servers, name, mcpOwners, 'MCP server', conflicts);
    const lspServers = snapshot.lspServers && keepFirstInstalled(snapshot.lspServers, name, lspOwners, 'language server', conflicts);
    if (servers === snapshot.servers && lspServers === snapshot.lspServers) return snapshot;
    return { ...snapshot, servers, ...(lspServers === undefined ? {} : { lspServers }) };
  });
  return { snapshots, conflicts };
}

/** `servers` without the names `owners` gives to an earlier extension (itself when none is); records the rest as `extension`'s. */
function keepFirstInstalled(
  servers: Record<string, unknown>,
  extension: string,
  owners: Map<string, string>,
  kind: string,
  conflicts: Map<string, string>,
): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  let dropped = false;
  for (const [server, config] of Object.entries(servers)) {
    const first = owners.get(server);
    if (first === undefined) {
      owners.set(server, extension);
      setOwn(kept, server, config);
      continue;
    }
    dropped = true;
    conflicts.set(
      `${kind}\0${server}\0${first}\0${extension}`,
      `extension "${extension}": ${kind} "${server}" is ignored – extension "${first}", installed earlier, provides it`,
    );
  }
  return dropped ? kept : servers;
}

/**
 * Extensions installed under `extensionsDir`, live (docs/contract.md, "Settings sources"): each
 * `<dir>/<name>` is a source of scope `extension`: its manifest's MCP servers and its language
 * servers ({@link fromExtension}).
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
 *
 * A server name two extensions provide belongs to the one installed first ({@link installTimeOnDisk},
 * then directory name): the later definition is dropped with a warning naming both, so installing
 * an extension can never swap another extension's server for its own (decision 58). Uninstalling
 * the first hands the name to the next. Scopes are not involved: a user server still wins over both.
 */
export function fromExtensions(
  extensionsDir: string,
  manifestName: string,
  deps: ExtensionsDeps = {},
): Observable<ExtensionsEvent> {
  const listDirectories = deps.listDirectories ?? listDirectoriesOnDisk;
  const installTime = deps.installTime ?? installTimeOnDisk;
  const exists = deps.exists ?? existsOnDisk;
  return new Observable<ExtensionsEvent>((subscriber) => {
    const installed = new Map<string, Installed>();
    let errors: SettingsFileError[] = [];
    let cleared: string[] = [];
    /** Files with an error reported and not cleared yet. */
    const failing = new Set<string>();
    const fail = (error: SettingsFileError): void => {
      failing.add(error.file);
      errors.push(error);
    };
    const clear = (file: string): void => {
      if (failing.delete(file)) cleared.push(file);
    };
    /** The failing files of one extension (its manifest, its `.lsp.json`, the file its manifest names). */
    const failingFilesOf = (name: string): string[] => {
      const prefix = join(extensionsDir, name) + sep;
      return [...failing].filter((file) => file.startsWith(prefix));
    };
    /** The conflicts of the previous emission: a warning is for a conflict that is new. */
    let reported = new Set<string>();
    let listed = false;

    const emitWhenComplete = (): void => {
      if (!listed) return;
      const ready: { name: string; snapshot: SourceSnapshot; installedAt: number; foreign: string | null }[] = [];
      for (const [name, { snapshot, installedAt, foreign }] of installed) {
        if (snapshot === undefined || installedAt === undefined || foreign === undefined) return;
        ready.push({ name, snapshot, installedAt, foreign });
      }
      ready.sort((a, b) => a.installedAt - b.installedAt || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      const { snapshots, conflicts } = firstInstalledWins(ready);
      const notes = new Map(conflicts);
      for (const { name, foreign } of ready) if (foreign !== null) notes.set(`manifest\0${name}\0${foreign}`, foreign);
      // Each once: while it stays, later emissions do not repeat it.
      const warnings = [...notes].filter(([key]) => !reported.has(key)).map(([, message]) => message);
      reported = new Set(notes.keys());
      const raised = errors;
      const mended = cleared;
      errors = [];
      cleared = [];
      subscriber.next({ snapshots, errors: raised, cleared: mended, warnings });
    };

    const install = (name: string): void => {
      const entry: Installed = { subscription: new Subscription(), snapshot: undefined, installedAt: undefined, foreign: undefined, looks: 0 };
      /** Looks for another client's manifest in place of ours; the extension's emission waits for the answer. */
      const lookForForeignManifest = (): void => {
        const look = ++entry.looks;
        entry.foreign = undefined;
        deps.onActivity?.('start');
        void foreignManifestOf(extensionsDir, name, manifestName, exists)
          .catch(() => null)
          .then((foreign) => {
            deps.onActivity?.('end');
            if (look !== entry.looks || installed.get(name) !== entry) return;
            entry.foreign = foreign;
            emitWhenComplete();
          });
      };
      installed.set(name, entry);
      // A read like the manifest's: the debounce waits for it rather than restarting at its end.
      entry.subscription.add(
        defer(() => {
          deps.onActivity?.('start');
          return from(installTime(join(extensionsDir, name)).catch(() => Number.POSITIVE_INFINITY));
        })
          .pipe(finalize(() => deps.onActivity?.('end')))
          .subscribe((at) => {
            entry.installedAt = at;
            emitWhenComplete();
          }),
      );
      entry.subscription.add(
        fromExtension(join(extensionsDir, name), manifestName, deps).subscribe({
          next: (event) => {
            if (event.kind === 'content') {
              entry.snapshot = event.snapshot;
              lookForForeignManifest();
            } else if (event.kind === 'ok') clear(event.file);
            else fail(event);
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
        for (const file of failingFilesOf(name)) clear(file);
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
      if (first || removed || added || errors.length > 0 || cleared.length > 0) emitWhenComplete();
    };

    let listingError: string | undefined;
    const listing = watchDirectory(extensionsDir, (name) => !isEditorArtifact(name), deps)
      .pipe(
        rereadOnTick(
          () =>
            listDirectories(extensionsDir).then(
              (names) => {
                listingError = undefined;
                clear(extensionsDir);
                return names;
              },
              (error: unknown) => {
                const message = `${extensionsDir}: cannot list extensions (${error instanceof Error ? error.message : String(error)})`;
                // Once per failure, not once per read of it (the watcher reads twice per change).
                if (listingError !== message) fail({ kind: 'error', file: extensionsDir, error: message });
                listingError = message;
                return [...installed.keys()];
              },
            ),
          deps.onActivity,
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
