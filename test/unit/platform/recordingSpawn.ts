import type { ChildProcess, SpawnOptions } from 'node:child_process';
import type { SpawnFunction } from '../../../src/platform/spawnCommand.js';

/** One call of a {@link recordingSpawn}. */
export interface SpawnCall {
  command: string;
  args: readonly string[];
  options: SpawnOptions;
}

/** A `spawn` that starts nothing and records what it was asked to run, for the platforms' spawn tests. */
export function recordingSpawn(): { spawn: SpawnFunction; calls: SpawnCall[] } {
  const calls: SpawnCall[] = [];
  const spawn: SpawnFunction = (command, args, options) => {
    calls.push({ command, args, options });
    return {} as ChildProcess;
  };
  return { spawn, calls };
}
