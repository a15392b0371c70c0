import { execFileSync } from 'node:child_process';

/**
 * Runs a system tool to its end and gives its stdout (`ps`, `sysctl`); `undefined` when it could
 * not run, failed or took too long. Synchronous: the process table is read where a check needs an
 * answer now (is this pid still the process we started?), as /proc is on Linux.
 */
export type RunCommand = (file: string, args: readonly string[], env: NodeJS.ProcessEnv) => string | undefined;

/** A tool that hangs (it should not) holds us up no longer than this. */
const TIMEOUT_MS = 5_000;
/** `ps -ax` of a busy machine is a few hundred KiB; more is not a process table. */
const MAX_OUTPUT_BYTES = 16 * 1024 * 1024;

export const runCommand: RunCommand = (file, args, env) => {
  try {
    return execFileSync(file, [...args], {
      env,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: TIMEOUT_MS,
      maxBuffer: MAX_OUTPUT_BYTES,
      windowsHide: true,
    });
  } catch {
    return undefined;
  }
};
