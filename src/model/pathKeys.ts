import { posix, win32 } from 'node:path';

/**
 * The pure half of the path keys (decision 283; the file system half is
 * platform/systemPathKeys.ts): which platforms' file systems ignore case by default, and how two
 * spellings of a path compare there.
 */

/** macOS (APFS and HFS+ as formatted by default) and Windows (NTFS) ignore case; Linux does not. */
export function ignoresCase(platform: NodeJS.Platform): boolean {
  return platform === 'darwin' || platform === 'win32';
}

/**
 * The path functions of one platform (`posix` or `win32`), typed by the value rather than by
 * `node:path`'s `PlatformPath`, which newer `@types/node` (25 and up) no longer export: a
 * consumer's type check must not depend on which `@types/node` it installed (decision 355).
 */
export type PathFlavor = typeof posix;

/** The path functions of the platform: `win32` for Windows, `posix` everywhere else. */
export function pathFlavor(platform: NodeJS.Platform): PathFlavor {
  return platform === 'win32' ? win32 : posix;
}

/** `c:\x` → `C:\x`: Windows names a drive in either case, Node and Explorer in capitals. */
export function upperDriveLetter(path: string): string {
  return /^[a-z]:/.test(path) ? `${path[0]!.toUpperCase()}${path.slice(1)}` : path;
}

/** A path as a case-blind file system compares it (Unicode composition aside, as APFS does). */
export function foldCase(path: string): string {
  return path.normalize('NFC').toLowerCase();
}

/** Whether `a` and `b` differ in case (or composition) at most. */
export function sameButCase(a: string, b: string): boolean {
  return a === b || foldCase(a) === foldCase(b);
}

/** How paths become keys on one platform (decision 283); made by platform/systemPathKeys.ts. */
export interface PathKeys {
  readonly platform: NodeJS.Platform;
  /** The platform's path functions (`win32` on Windows): keys are made and compared with them. */
  readonly path: PathFlavor;
  /** Whether keys can differ from their spelling here (darwin, win32). */
  readonly ignoresCase: boolean;
  /** The key of an absolute path (see the module comment). */
  key(path: string): string;
  /** The approvals' project root (docs/contract.md, "Approvals"): the realpath of the workspace, in its real case. Throws when it does not exist. */
  projectRoot(cwd: string): string;
  /** The key of the path a `file:` URI names; `undefined` for another URI or a malformed one. */
  pathOfFileUri(uri: string): string | undefined;
  /** The `file:` URI of an absolute path. */
  fileUri(path: string): string;
}
