import type { McpLiveEvent } from '../model/report/events.js';
import { createOutputMasks, type Environment } from '../model/settings/secrets.js';
import { terminalSafeJson } from '../model/terminalText.js';

/**
 * The `--json` output: one event a line. Writes synchronously in arrival order, so a `result`
 * never overtakes the events that led to it.
 *
 * Every string value of every event passes through {@link createTextMasker} on the way out — a
 * last net under the per-server masking, for any text that reaches an event some other way:
 * known token formats, URL credentials and query values, and the values of the secret-named
 * variables of `env` (decision 55). Keys are not values: they stay. A gated entry as written (in
 * `approval-required`) is the repository's own text: in it the net masks real secrets only
 * (decision 167). Each line is made safe to `tail` in a terminal (decision 168).
 */
export function ndjsonWriter(
  out: NodeJS.WritableStream,
  env: Environment = process.env,
): (event: McpLiveEvent, options?: { verbatimData?: boolean }) => void {
  const { replacer } = createOutputMasks(env);
  /** Writes `event` masked, but for `key`, whose value goes out as it is. */
  const writeKeeping = (event: McpLiveEvent, key: string, value: unknown): void => {
    const masked = JSON.parse(JSON.stringify({ ...event, [key]: undefined }, replacer)) as Record<string, unknown>;
    out.write(`${terminalSafeJson(JSON.stringify({ ...masked, [key]: value }))}\n`);
  };
  return (event, { verbatimData = false } = {}) => {
    // A tool's answer to `call` is the agent's data, as `callTool` returns it in the library:
    // masking a URL's query or a token-shaped id in it would change what the tool said.
    if (verbatimData && event.type === 'result' && event.data !== undefined) return writeKeeping(event, 'data', event.data);
    // The authorization URL is for a browser: its query (client_id, state, the PKCE challenge)
    // is what makes it work, and none of it is a secret — the verifier never leaves mcp-live.
    if (event.type === 'auth-required') return writeKeeping(event, 'url', event.url);
    out.write(`${terminalSafeJson(JSON.stringify(event, replacer))}\n`);
  };
}
