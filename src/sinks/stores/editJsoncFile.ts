import { lstat, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { describeReadError } from '../../files/readJsonc.js';
import { readRegularFile } from '../../files/readRegularFile.js';
import { JsoncEditError } from '../../model/settings/jsoncEdit.js';
import { writeOwnedFile } from '../../files/writeOwnedFile.js';

/** Mode of a file (and its directory) this creates: settings may hold tokens, so only the user reads them. */
const NEW_FILE_MODE = 0o600;
const NEW_DIR_MODE = 0o700;

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Read-modify-write of a JSONC settings-like file: reads it (a regular file of at most 4 MiB;
 * missing = empty text), lets `edit` return the new text, and writes that atomically through
 * {@link writeOwnedFile} — so a symlink, a special file or another user's file is refused. An
 * existing file keeps its mode (a 0644 settings file stays 0644, a 0600 one 0600); a new one
 * is created 0600, its missing directories 0700. `edit` throws to refuse (a file that does not
 * parse): then nothing is written. Returns whether the file was created and whether anything changed.
 */
export async function editJsoncFile(
  path: string,
  edit: (text: string) => string,
): Promise<{ created: boolean; changed: boolean }> {
  let text = '';
  let mode: number | undefined;
  try {
    const bytes = await readRegularFile(path);
    mode = (await lstat(path)).mode & 0o7777;
    try {
      text = utf8.decode(bytes);
    } catch {
      throw new JsoncEditError(`${path}: not UTF-8 text; nothing was written`);
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT') {
      if (error instanceof JsoncEditError) throw error;
      throw new JsoncEditError(`${path}: ${describeReadError(code, error)}; nothing was written`);
    }
  }
  const next = edit(text);
  if (next === text) return { created: false, changed: false };
  if (mode === undefined) await mkdir(dirname(path), { recursive: true, mode: NEW_DIR_MODE });
  await writeOwnedFile(path, next, { mode: mode ?? NEW_FILE_MODE });
  return { created: mode === undefined, changed: true };
}
