import { describe, expect, it } from 'vitest';
import { clientSent, gatewaySent, NEW_RELAY_WATCH, restartIn, type RelayWatch } from '../../../src/model/gateway/relayRestart.js';

const QUIET = 1_000;
const request = (id: number | string, method: string) => ({ jsonrpc: '2.0', id, method });
const answer = (id: number | string) => ({ jsonrpc: '2.0', id, result: {} });
const changed = (kind: 'tools' | 'prompts' | 'resources') => ({ jsonrpc: '2.0', method: `notifications/${kind}/list_changed` });

/** A session that initialized and listed tools, every request answered. */
function listedTools(): RelayWatch {
  let w = clientSent(NEW_RELAY_WATCH, request(0, 'initialize'));
  w = gatewaySent(w, answer(0), 0);
  w = clientSent(w, { jsonrpc: '2.0', method: 'notifications/initialized' });
  w = clientSent(w, request(1, 'tools/list'));
  return gatewaySent(w, answer(1), 0);
}

describe('relayRestart: when --restart-on-change ends the session', () => {
  it('never without a change; a change of a listed list ends it once quiet for quietMs', () => {
    const w = listedTools();
    expect(restartIn(w, 10_000, QUIET)).toBeUndefined();
    const stale = gatewaySent(w, changed('tools'), 5_000);
    expect(restartIn(stale, 5_000, QUIET)).toBe(QUIET);
    expect(restartIn(stale, 5_600, QUIET)).toBe(400);
    expect(restartIn(stale, 6_000, QUIET)).toBe(0);
    expect(restartIn(stale, 9_000, QUIET)).toBe(0);
  });

  it('debounced: each further change moves the end back', () => {
    let w = gatewaySent(listedTools(), changed('tools'), 1_000);
    w = gatewaySent(w, changed('tools'), 1_800);
    w = gatewaySent(w, changed('prompts'), 1_900);
    expect(restartIn(w, 2_000, QUIET)).toBe(800);
  });

  it('not for a list the client never asked for, nor before its first listing (that listing is current)', () => {
    const before = gatewaySent(gatewaySent(NEW_RELAY_WATCH, changed('tools'), 0), changed('resources'), 0);
    expect(restartIn(before, 10_000, QUIET)).toBeUndefined();
    const other = gatewaySent(listedTools(), changed('prompts'), 0);
    expect(restartIn(other, 10_000, QUIET)).toBeUndefined();
    // resources/templates/list counts as reading the resources.
    const templates = gatewaySent(clientSent(NEW_RELAY_WATCH, request(7, 'resources/templates/list')), answer(7), 0);
    expect(restartIn(gatewaySent(templates, changed('resources'), 0), 10_000, QUIET)).toBe(0);
  });

  it('a client that lists again by itself (it honours list_changed) is never restarted', () => {
    let w = gatewaySent(listedTools(), changed('tools'), 1_000);
    w = clientSent(w, request(2, 'tools/list'));
    w = gatewaySent(w, answer(2), 1_050);
    expect(restartIn(w, 10_000, QUIET)).toBeUndefined();
  });

  it('waits for every unanswered request of the client (a call in flight is never cut); a cancelled one is not waited for', () => {
    let w = clientSent(listedTools(), request(5, 'tools/call'));
    w = clientSent(w, request('five', 'tools/call'));
    w = gatewaySent(w, changed('tools'), 1_000);
    expect(restartIn(w, 5_000, QUIET)).toBeUndefined();
    // "5" is not 5.
    w = gatewaySent(w, answer('5'), 5_000);
    expect(restartIn(w, 5_000, QUIET)).toBeUndefined();
    w = gatewaySent(w, answer(5), 5_000);
    expect(restartIn(w, 5_000, QUIET)).toBeUndefined();
    w = clientSent(w, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'five' } });
    expect(restartIn(w, 5_000, QUIET)).toBe(0);
  });

  it("an error answer counts; the gateway's own requests and the client's answers to them wait on nothing", () => {
    let w = clientSent(listedTools(), request(9, 'tools/call'));
    w = gatewaySent(w, { jsonrpc: '2.0', id: 0, method: 'elicitation/create', params: {} }, 0);
    w = clientSent(w, { jsonrpc: '2.0', id: 0, result: { action: 'cancel' } });
    w = gatewaySent(w, changed('tools'), 0);
    expect(w.inFlight).toEqual(['9']);
    w = gatewaySent(w, { jsonrpc: '2.0', id: 9, error: { code: -32602, message: 'no' } }, 0);
    expect(restartIn(w, QUIET, QUIET)).toBe(0);
  });

  it('a line it could not read (over the cap) answers the oldest request; other lines and batches', () => {
    let w = clientSent(listedTools(), [request(3, 'tools/list'), request(4, 'tools/call')]);
    expect(w.inFlight).toEqual(['3', '4']);
    w = gatewaySent(w, undefined, 0);
    expect(w.inFlight).toEqual(['4']);
    w = gatewaySent(w, [answer(4), changed('tools')], 0);
    expect(restartIn(w, QUIET, QUIET)).toBe(0);
    // Not JSON-RPC: nothing changes.
    for (const junk of [null, 3, 'x', {}, { id: 1 }, { method: 5 }]) {
      expect(clientSent(w, junk)).toBe(w);
      expect(gatewaySent(w, junk, 0)).toBe(w);
    }
    expect(gatewaySent(NEW_RELAY_WATCH, undefined, 0)).toBe(NEW_RELAY_WATCH);
  });
});
