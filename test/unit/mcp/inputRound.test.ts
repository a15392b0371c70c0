import { describe, expect, it } from 'vitest';
import { roundCall } from '../../../src/sinks/mcp/inputRound.js';

const params = { name: 'approve', arguments: { a: 1 }, _meta: { traceparent: 't' } };

describe('a passed-through round of a tools/call (decision 372)', () => {
  it('is an ordinary call without a round', () => {
    expect(roundCall('s', 'modern', params, undefined)).toEqual({ params, raw: false });
  });

  it('on a 2026-07-28 server: the retry as sent, the client’s capabilities in the envelope beside the trace context, the answer raw', () => {
    const round = { inputResponses: { approval: { action: 'accept' } }, requestState: 'backend-state', clientCapabilities: { elicitation: {} } };
    expect(roundCall('s', 'modern', params, round)).toEqual({
      params: {
        name: 'approve',
        arguments: { a: 1 },
        _meta: { traceparent: 't', 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } },
        inputResponses: { approval: { action: 'accept' } },
        requestState: 'backend-state',
      },
      raw: true,
    });
  });

  it('on a 2025-era server: a first round is an ordinary call, a retry with a requestState is -32602', () => {
    expect(roundCall('s', 'legacy', params, { clientCapabilities: {} })).toEqual({ params, raw: false });
    let thrown: unknown;
    try {
      roundCall('s', 'legacy', params, { requestState: 'x.y' });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toMatchObject({ code: -32602 });
    expect((thrown as Error).message).toContain('server "s"');
  });
});
