import { CLIENT_CAPABILITIES_META_KEY, ProtocolErrorCode } from '@modelcontextprotocol/client';
import type { InputRound } from '../../model/connection.js';

/** A `tools/call`'s params, as the connector sends them. */
export interface ToolCallParams {
  name: string;
  arguments: Record<string, unknown>;
  _meta?: Record<string, unknown>;
}

/**
 * A `tools/call` as one passed-through round of a 2026-07-28 client's request (decision 372):
 * `raw` when the server's `input_required` answer is the call's result rather than asked of
 * the session's hooks. On a 2025-era server a first round is an ordinary call; a retry cannot
 * be one, as that server never minted a `requestState`.
 */
export function roundCall(server: string, era: 'modern' | 'legacy' | undefined, params: ToolCallParams, round: InputRound | undefined): { params: ToolCallParams; raw: boolean } {
  if (round === undefined) return { params, raw: false };
  if (era !== 'modern') {
    if (round.requestState === undefined) return { params, raw: false };
    throw Object.assign(
      new Error(
        `invalid requestState: server "${server}" speaks a 2025 revision, which has no requestState (the call it names may be held by another gateway process, or be over); call again without requestState`,
      ),
      { code: ProtocolErrorCode.InvalidParams },
    );
  }
  const { inputResponses, requestState, clientCapabilities } = round;
  return {
    params: {
      ...params,
      ...(clientCapabilities === undefined ? {} : { _meta: { ...params._meta, [CLIENT_CAPABILITIES_META_KEY]: clientCapabilities } }),
      ...(inputResponses === undefined ? {} : { inputResponses }),
      ...(requestState === undefined ? {} : { requestState }),
    },
    raw: true,
  };
}
