import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolveServerConfig } from '../../../src/model/settings/validate.js';
import { connectMcp } from '../../../src/sinks/mcp/connector.js';
import { closeTracked, connectOnce, errorOf, fixture, track } from '../mcpServers.js';
import { noLeftoversAfterAll } from '../workspace.js';

/**
 * Decision 55 with a real process: a server started with an inherited secret in
 * mcp-live's own environment and secrets in its args (`--api-key=$MYSECRET` expanded, a whole
 * arg from a variable, a token-format arg) writes all of them to stderr and quotes them in its
 * exit message. Neither the stderr tail nor the error text shows any of them.
 */

const INHERITED = 'MCP_LIVE_IT_GITHUB_TOKEN';
const LOCATION = 'MCP_LIVE_IT_DB_LOCATION';
const SECRETS = {
  inherited: 'inh-INHERITSECRET-4d2e',
  apiKey: 'key-APIKEYSECRET-77aa',
  location: 'dbloc-EXPANDEDSECRET-5f',
  token: 'ghp_TOKENSECRETa1B2c3D4e5F6g7H8i9J0k1L2',
};
const CORES = ['INHERITSECRET', 'APIKEYSECRET', 'EXPANDEDSECRET', 'TOKENSECRET'];

function secretsIn(text: string): string[] {
  return CORES.filter((core) => text.includes(core));
}

beforeEach(() => {
  // The child inherits mcp-live's environment: this is how a real secret reaches a server.
  process.env[INHERITED] = SECRETS.inherited;
  process.env[LOCATION] = SECRETS.location;
});
afterEach(async () => {
  delete process.env[INHERITED];
  delete process.env[LOCATION];
  await closeTracked();
});
noLeftoversAfterAll();

/** The entry as a user writes it, resolved as the pipeline does (`$VAR` from the environment). */
function leakyServer(after: number) {
  const entry = {
    command: process.execPath,
    args: [
      fixture('secret-leak-server.mjs'),
      '--api-key=$MYSECRET',
      `$${LOCATION}`,
      '--upload-with',
      SECRETS.token,
      '--echo-env',
      INHERITED,
      '--after',
      String(after),
    ],
    timeout: 20_000,
  };
  const resolution = resolveServerConfig(entry, { ...process.env, MYSECRET: SECRETS.apiKey });
  if (!resolution.ok) throw new Error(resolution.error);
  // The fixture really got the secrets: otherwise this test would prove nothing.
  expect(secretsIn(resolution.resolved.args.join(' '))).toEqual(CORES.slice(1));
  return resolution.resolved;
}

describe('secrets a stdio server prints', () => {
  it('are masked in the stderr tail and in the error of a server that dies after connecting', async () => {
    const connection = track(await connectOnce(connectMcp('leaky', leakyServer(300))));
    const error = await errorOf(connection.lists$);
    const tail = connection.stderrTail().join('\n');
    // The lines are there, with masks where the secrets were.
    expect(tail).toContain(`debug: ${INHERITED}=***`);
    expect(tail).toContain(`argv: --api-key=*** *** --upload-with *** --echo-env ${INHERITED} --after 300`);
    expect(error.message).toMatch(/^process exited with code 1: Error: rejected .*--api-key=\*\*\* \*\*\* --upload-with \*\*\* .* \*\*\*$/);
    expect(secretsIn(tail), 'stderr tail').toEqual([]);
    expect(secretsIn(error.message), 'error').toEqual([]);
  });

  it('are masked in the error of a server that dies before initialize', async () => {
    const error = await errorOf(connectMcp('leaky-early', leakyServer(0)));
    expect(error.message).toMatch(/^process exited with code 1: Error: rejected /);
    expect(secretsIn(error.message)).toEqual([]);
  });
});
