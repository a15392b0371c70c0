import { realpath } from 'node:fs/promises';
import { isAbsolute, normalize, relative, sep } from 'node:path';
import type { ReadFileFn } from './readJsonc.js';
import { RefusedFileError, readRegularFile } from './readRegularFile.js';

/**
 * A relative path that stays inside the directory it is relative to, as written (`lsp.json`,
 * `config/lsp.json`; not `/etc/x`, `../x` or `.`). Where its symlinks lead is checked when it is
 * read ({@link readInsideDirectory}).
 */
export function isPathInside(value: unknown): value is string {
  if (typeof value !== 'string' || value === '' || isAbsolute(value)) return false;
  const normal = normalize(value);
  return normal !== '.' && normal !== '..' && !normal.startsWith(`..${sep}`);
}

/**
 * `read`, for files that must stay inside `directory` once every symlink is followed (a file an
 * extension names in its manifest): a path leading out of it, through a link anywhere on the
 * way, is refused (`EOUTSIDE`) — an extension cannot make mcp-live read another file of the
 * user's as its own. The resolved path is what is read, so a link re-pointed after the check
 * is not followed. A missing file stays `ENOENT` (an empty source).
 */
export function readInsideDirectory(directory: string, read: ReadFileFn = readRegularFile): ReadFileFn {
  return async (path) => {
    const [root, target] = await Promise.all([realpath(directory), realpath(path)]);
    const rest = relative(root, target);
    if (rest === '' || rest === '..' || rest.startsWith(`..${sep}`) || isAbsolute(rest)) {
      throw new RefusedFileError(path, 'EOUTSIDE', `leads to ${target}, outside ${root}`);
    }
    return read(target);
  };
}
