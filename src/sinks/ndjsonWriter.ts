import type { McpLiveEvent } from '../model/events.js';

/**
 * The `--json` output: one event a line. Writes synchronously in arrival order, so a `result`
 * never overtakes the events that led to it.
 */
export function ndjsonWriter(out: NodeJS.WritableStream): (event: McpLiveEvent) => void {
  return (event) => {
    out.write(`${JSON.stringify(event)}\n`);
  };
}
