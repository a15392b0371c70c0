import { parseJsoncObject, type JsoncReadResult } from '../model/settings/parseJsonc.js';
import { readRegularFile } from './readRegularFile.js';

/**
 * Reads a whole file as bytes; the seam tests replace. The default, {@link readRegularFile},
 * refuses special files and files over 4 MiB with a `code` that {@link describeReadError} knows.
 */
export type ReadFileFn = (path: string) => Promise<Uint8Array>;

export interface ReadJsoncDeps {
  readFile?: ReadFileFn;
}

/**
 * A file read as 0 bytes is read once more this much later before it counts as empty (decision
 * 296): an editor that saves in place (VS Code, nano) truncates the file before it writes it, and
 * a read in between is no save anyone made.
 */
const EMPTY_REREAD_MS = 100;

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Reads a JSON-with-comments file whose top level must be an object (docs/contract.md, "Reading a file").
 * A missing file is an empty source (`value: undefined`); every other failure is an error
 * result with a message naming the file — it never throws. A file of 0 bytes is read again
 * {@link EMPTY_REREAD_MS} later, and only that read's answer counts.
 */
export async function readJsonc(path: string, deps: ReadJsoncDeps = {}): Promise<JsoncReadResult> {
  const readFile = deps.readFile ?? readRegularFile;
  let bytes: Uint8Array;
  try {
    bytes = await readFile(path);
    if (bytes.length === 0) {
      await new Promise((resolve) => setTimeout(resolve, EMPTY_REREAD_MS));
      bytes = await readFile(path);
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException | undefined)?.code;
    if (code === 'ENOENT') return { ok: true, value: undefined };
    return { ok: false, error: `${path}: ${describeReadError(code, error)}` };
  }
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return { ok: false, error: `${path}: not UTF-8 text (settings files must be saved as UTF-8)` };
  }
  try {
    return parseJsoncObject(text, path);
  } catch (error) {
    // Never thrown by design (the nesting limit guards the recursion); a reader must not throw.
    return { ok: false, error: `${path}: cannot be parsed (${error instanceof Error ? error.message : String(error)})` };
  }
}

/** Why a file could not be read, in words, without its path (`code` is the error's). */
export function describeReadError(code: string | undefined, error: unknown): string {
  switch (code) {
    case 'ENOTREG':
    case 'EFBIG':
    case 'ENOTOWNER':
    case 'EOUTSIDE':
      // readRegularFile's refusals carry their words (the file's type, size, owner or place).
      return reasonOf(error) ?? REFUSAL_WORDS[code];
    case 'EISDIR':
      return 'is a directory, expected a file';
    case 'ENOTDIR':
      return 'a parent of this path is a file, not a directory';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied (cannot read the file)';
    default:
      return `cannot be read (${error instanceof Error ? error.message : String(error)})`;
  }
}

const REFUSAL_WORDS = {
  ENOTREG: 'not a regular file',
  EFBIG: 'file too large',
  ENOTOWNER: 'owned by another user',
  EOUTSIDE: 'outside the directory it must be in',
} as const;

function reasonOf(error: unknown): string | undefined {
  const reason = (error as { reason?: unknown } | undefined)?.reason;
  return typeof reason === 'string' ? reason : undefined;
}
