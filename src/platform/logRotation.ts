import { copyFileSync, renameSync, statSync, truncateSync } from 'node:fs';

/**
 * The gateway daemon's log (`<runtimeDir>/gateway-<profile>-<hash>.log`: its NDJSON events and
 * errors) kept to a size (decision 284). The runtime directory is emptied at logout only
 * under XDG_RUNTIME_DIR; `~/.<profile>/run` (macOS, Windows, Linux without it) never is, and a
 * daemon's output was appended there forever.
 *
 *   the log reaches 1 MiB  →  it becomes `<log>.1` (replacing the one before), a new log begins
 *
 * So a log is at most about 1 MiB plus one older generation. Two places do it:
 *
 *   {@link rotateLog}           a client, before it starts a daemon on the log: the old log is
 *                               renamed (atomic; nothing writes to it now)
 *   {@link capLogWhileRunning}  the daemon, every 30 s: its stdout and stderr are descriptors it
 *                               inherited and cannot reopen, so the log is copied to `.1` and cut
 *                               to nothing in place; the daemon's next line (append mode) starts it
 *                               again. A line written between the copy and the cut is lost.
 *
 * On Windows a rename of a log another process still holds open can fail (EBUSY, EPERM); the copy
 * and the cut work there, and are what a start falls back to. Nothing here throws: a log that
 * cannot be kept small stays as it is.
 */

export const LOG_CAP_BYTES = 1024 * 1024;
const CHECK_EVERY_MS = 30_000;

export interface LogFileDeps {
  size?: (path: string) => number;
  rename?: (from: string, to: string) => void;
  copy?: (from: string, to: string) => void;
  truncate?: (path: string) => void;
}

export interface LogRotationOptions extends LogFileDeps {
  /** Default {@link LOG_CAP_BYTES}. */
  capBytes?: number;
}

/** The older generation's name. */
export function olderLog(path: string): string {
  return `${path}.1`;
}

/** Rotates `path` once it has reached the cap (see the module comment); returns whether it did. */
export function rotateLog(path: string, options: LogRotationOptions = {}): boolean {
  const deps = withDefaults(options);
  if (!overCap(path, options.capBytes ?? LOG_CAP_BYTES, deps)) return false;
  try {
    deps.rename(path, olderLog(path));
    return true;
  } catch {
    return copyAndCut(path, deps);
  }
}

/**
 * In the process whose output goes to `path`: every `everyMs` (default 30 s), once it has reached
 * the cap, copies the log to `<log>.1` and cuts it to nothing. Returns the stop; the timer never
 * keeps the process alive.
 */
export function capLogWhileRunning(path: string, options: LogRotationOptions & { everyMs?: number } = {}): () => void {
  const deps = withDefaults(options);
  const cap = options.capBytes ?? LOG_CAP_BYTES;
  const timer = setInterval(() => {
    if (overCap(path, cap, deps)) copyAndCut(path, deps);
  }, options.everyMs ?? CHECK_EVERY_MS);
  timer.unref();
  return () => clearInterval(timer);
}

function overCap(path: string, cap: number, deps: Required<LogFileDeps>): boolean {
  try {
    return deps.size(path) >= cap;
  } catch {
    return false; // No log yet.
  }
}

function copyAndCut(path: string, deps: Required<LogFileDeps>): boolean {
  try {
    deps.copy(path, olderLog(path));
    deps.truncate(path);
    return true;
  } catch {
    return false;
  }
}

function withDefaults(deps: LogFileDeps): Required<LogFileDeps> {
  return {
    size: deps.size ?? ((path) => statSync(path).size),
    rename: deps.rename ?? renameSync,
    copy: deps.copy ?? copyFileSync,
    truncate: deps.truncate ?? ((path) => truncateSync(path, 0)),
  };
}
