/**
 * The trace context of a client's request that the gateway passes to the backend request serving
 * it (decision 392): W3C Trace Context and Baggage under their `_meta` keys, as the MCP
 * specification's OpenTelemetry conventions name them (the SDK's TRACEPARENT_META_KEY,
 * TRACESTATE_META_KEY and BAGGAGE_META_KEY). Nothing else of the client's `_meta` goes on: its
 * progress token and its protocol envelope belong to its own hop.
 */
export const TRACE_CONTEXT_META_KEYS = ['traceparent', 'tracestate', 'baggage'] as const;

/** The longest value passed on: the W3C limits are far below (tracestate 512, baggage 8192). */
const MAX_VALUE_LENGTH = 8192;

/** The trace-context entries of `meta` that are strings of sane length; undefined when there are none. */
export function traceContextOf(meta: Readonly<Record<string, unknown>> | undefined): Record<string, string> | undefined {
  if (meta === undefined) return undefined;
  const picked: Record<string, string> = {};
  let any = false;
  for (const key of TRACE_CONTEXT_META_KEYS) {
    const value = meta[key];
    if (typeof value === 'string' && value.length > 0 && value.length <= MAX_VALUE_LENGTH) {
      picked[key] = value;
      any = true;
    }
  }
  return any ? picked : undefined;
}
