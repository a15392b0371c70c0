import { LoggingLevelSchema } from '@modelcontextprotocol/core';
import type { LoggingLevel } from '@modelcontextprotocol/server';

const SEVERITY: ReadonlyMap<LoggingLevel, number> = new Map(LoggingLevelSchema.options.map((level, i) => [level, i]));

/** Whether a log message at `level` passes a client's `threshold` (its `logging/setLevel`, or a request's `logLevel`). */
export function logPasses(level: LoggingLevel, threshold: LoggingLevel): boolean {
  return SEVERITY.get(level)! >= SEVERITY.get(threshold)!;
}
