import { BAGGAGE_META_KEY, TRACEPARENT_META_KEY, TRACESTATE_META_KEY } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { TRACE_CONTEXT_META_KEYS, traceContextOf } from '../../../src/model/gateway/traceContext.js';

describe('traceContextOf: what of a request’s _meta the gateway passes to the backend (decision 392)', () => {
  it('names the keys the SDK names', () => {
    expect(TRACE_CONTEXT_META_KEYS).toEqual([TRACEPARENT_META_KEY, TRACESTATE_META_KEY, BAGGAGE_META_KEY]);
  });

  it('keeps traceparent, tracestate and baggage; drops the progress token, the envelope and anything else', () => {
    expect(
      traceContextOf({
        traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
        tracestate: 'a=1',
        baggage: 'k=v',
        progressToken: 7,
        'io.modelcontextprotocol/clientInfo': { name: 'x' },
        other: 'no',
      }),
    ).toEqual({ traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01', tracestate: 'a=1', baggage: 'k=v' });
  });

  it('is undefined without any; values that are not strings, empty or oversized are dropped', () => {
    expect(traceContextOf(undefined)).toBeUndefined();
    expect(traceContextOf({ progressToken: 1 })).toBeUndefined();
    expect(traceContextOf({ traceparent: 42, tracestate: '', baggage: 'x'.repeat(8193) })).toBeUndefined();
    expect(traceContextOf({ traceparent: 42, baggage: 'k=v' })).toEqual({ baggage: 'k=v' });
  });
});
