import type { McpLiveEvent } from '../model/events.js';
import { createTextMasker, maskingReplacer, type Environment } from '../model/secrets.js';

/**
 * The `--json` output: one event a line. Writes synchronously in arrival order, so a `result`
 * never overtakes the events that led to it.
 *
 * Every string value of every event passes through {@link createTextMasker} on the way out — a
 * last net under the per-server masking, for any text that reaches an event some other way:
 * known token formats, URL credentials and query values, and the values of the secret-named
 * variables of `env` (issue 11). Keys are not values: they stay.
 */
export function ndjsonWriter(
  out: NodeJS.WritableStream,
  env: Environment = process.env,
): (event: McpLiveEvent, options?: { verbatimData?: boolean }) => void {
  const replacer = maskingReplacer(createTextMasker(env));
  return (event, { verbatimData = false } = {}) => {
    if (verbatimData && event.type === 'result' && event.data !== undefined) {
      // A tool's answer to `call` is the agent's data, as `callTool` returns it in the library:
      // masking a URL's query or a token-shaped id in it would change what the tool said.
      const masked = JSON.parse(JSON.stringify({ ...event, data: undefined }, replacer)) as Record<string, unknown>;
      out.write(`${JSON.stringify({ ...masked, data: event.data })}\n`);
      return;
    }
    out.write(`${JSON.stringify(event, replacer)}\n`);
  };
}
