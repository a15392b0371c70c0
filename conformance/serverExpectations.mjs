/**
 * The server scenarios of the conformance suite that fail through `mcp-live serve`, and why
 * (scripts/conformance.mjs prints these in docs/conformance.md), keyed by the scenario's name
 * (every revision) or `NAME@REVISION` (that revision only, which wins):
 *   kind 'proxy'  a server that proxies another cannot pass it; the run still succeeds;
 *   kind 'bug'    a known bug of ours, still open; the run fails until it is fixed
 *                 (`intermittent`: a race, so some runs pass);
 *   fixture       set when the fixture alone (over HTTP, no gateway) fails it too: why.
 * A failing required scenario missing here is "not explained" and fails the run; one listed here
 * that passes is reported, so a stale claim does not linger.
 *
 * `server-sse-polling`, once listed as one a proxy cannot pass, passes since the gateway's
 * sessions keep an event store and announce `retry` (decision 363).
 */
export const SERVER_EXPECTATIONS = {
  'server-stateless@2026-07-28': {
    kind: 'proxy',
    reason:
      'its two list-change checks (SHOULD) call fixture tools that announce a list change without changing the list; the gateway tells its clients only of changes to the lists it serves (decision 114), and an announcement that changes nothing changes none of them. Every other check passes through the gateway.',
  },
};

/** What is expected of `name` at `revision`, if anything. */
export function expectationFor(name, revision) {
  return SERVER_EXPECTATIONS[`${name}@${revision}`] ?? SERVER_EXPECTATIONS[name];
}
