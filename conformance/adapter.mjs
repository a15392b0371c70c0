#!/usr/bin/env node
/**
 * The client the MCP conformance runner starts for each client scenario (`npm run conformance`,
 * scripts/conformance.mjs): `node conformance/adapter.mjs SERVER_URL`, with the scenario in
 * MCP_CONFORMANCE_SCENARIO and its data in MCP_CONFORMANCE_CONTEXT.
 *
 * It proves mcp-live, not itself: it drives only mcp-live's public CLI the way a user would.
 * It writes the server into a fresh user settings file (user scope: no approval), runs
 * `mcp-live --json` on a fresh workspace and answers its NDJSON events — `auth` when the server
 * needs authorization, the scenario's work once it is connected (its tool calls, prompts and
 * resources, one after another, as a user or an agent would ask for them), accept on every
 * elicitation. For OAuth it plays the user's browser and nothing more: it opens the
 * `auth-required` URL and follows the redirects to mcp-live's own loopback callback. All
 * protocol work (discovery, registration, PKCE, tokens, step-up, retries) is mcp-live's. Where a
 * scenario wants a tool's schema sent back, it reads it as an agent would, with
 * `{"cmd":"tools","schemas":true}`, and passes it to the call as it came.
 *
 * The revision a scenario runs at (MCP_CONFORMANCE_PROTOCOL_VERSION) is not passed on: mcp-live
 * negotiates the protocol with the scenario's server as it does with any server.
 *
 * Logs what it sees and sends to stderr (the runner keeps it as stderr.txt), never a token.
 * Exits 0 once the scenario's work is done, 1 when the server ends in `error`, the work fails or
 * the deadline passes.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const SERVER = 'conf';
/** The reference client's CIMD URL (examples/clients/typescript/everything-client.ts). */
const CLIENT_METADATA_URL = 'https://conformance-test.local/client-metadata.json';
/** Below the runner's 30 s, so a stall is reported by us, with our log, not as a bare timeout. */
const DEADLINE_MS = 25_000;
const MAX_AUTH_ATTEMPTS = 3;
/** How long `quit` may take before the session is ended by signal. */
const QUIT_GRACE_MS = 5_000;
/** mcp-live's words for a call that needs (more) authorization: a step-up, a revoked token. */
const NEEDS_AUTH_ERROR = /needs (more authorization|authentication)/;

const CLI = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'src', 'cli', 'main.js');

const serverUrl = process.argv[2];
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
if (!serverUrl || !scenario) {
  console.error('usage: MCP_CONFORMANCE_SCENARIO=NAME node conformance/adapter.mjs SERVER_URL');
  process.exit(2);
}

const log = (...parts) => console.error('[adapter]', ...parts);

/**
 * The server entry's `oauth` block for the scenario (Gemini CLI's field names, as mcp-live reads
 * them) and the environment that carries its secrets: a private key or an ID token is passed as
 * `${VAR}`, so it never sits in a file.
 */
function oauthFor(name, context) {
  if (!name.startsWith('auth/')) return { oauth: undefined, env: {} };
  switch (name) {
    case 'auth/pre-registration':
      return { oauth: { clientId: context.client_id, clientSecret: context.client_secret }, env: {} };
    case 'auth/client-credentials-basic':
      return {
        oauth: { grantType: 'client_credentials', clientId: context.client_id, clientSecret: context.client_secret },
        env: {},
      };
    case 'auth/client-credentials-jwt':
      return {
        oauth: {
          grantType: 'client_credentials',
          clientId: context.client_id,
          privateKey: '${CONF_PRIVATE_KEY}',
          ...(context.signing_algorithm ? { signingAlgorithm: context.signing_algorithm } : {}),
        },
        env: { CONF_PRIVATE_KEY: context.private_key_pem },
      };
    // Enterprise-managed authorization (token exchange at the IdP, then the JWT-bearer grant).
    case 'auth/enterprise-managed-authorization':
      return {
        oauth: {
          grantType: 'jwt-bearer',
          clientId: context.client_id,
          clientSecret: context.client_secret,
          idp: { tokenUrl: context.idp_token_endpoint, clientId: context.idp_client_id, idToken: '${CONF_IDP_ID_TOKEN}' },
        },
        env: { CONF_IDP_ID_TOKEN: context.idp_id_token },
      };
    default:
      return { oauth: { clientMetadataUrl: CLIENT_METADATA_URL }, env: {} };
  }
}

/**
 * The scenario's work once the server is connected: `steps`, run one after another, each
 * answered before the next is sent. A step is
 *   { call: TOOL, args }             `call`, the tool found by its unqualified name among the
 *                                    server's qualified ones (`mcp__conf__add_numbers`);
 *   { call: TOOL, echoSchemaOf: T }  the same with `{ schema }`, the input schema mcp-live lists
 *                                    for tool T (`{"cmd":"tools","schemas":true}`);
 *   { callEveryListed: argsFor }     a call of every tool mcp-live offers of the server, in
 *                                    its order, with `argsFor(tool)`: what an agent could call;
 *   { prompt: NAME, args }           `get-prompt`;
 *   { read: URI }                    `read-resource`.
 * A step's `refusal` (a pattern): a call error it matches answers the step as a result would —
 * the scenario judges what the server saw, and mcp-live may refuse what the server sent.
 * `optional`: the scenario passes without the first step's tool (auth scenarios: connecting and
 * listing is the test, `test-tool` where the server has it). `whileAsked`: a step sent when the
 * first elicitation arrives, answered before the elicitation is: a request between two rounds
 * of a multi-round-trip call. No plan: connecting (and the lists mcp-live fetches on its own)
 * is the whole test.
 */
function planFor(name, context) {
  const call = (tool, args = {}) => ({ call: tool, args });
  switch (name) {
    case 'tools_call':
      return { steps: [call('add_numbers', { a: 2, b: 3 })] };
    case 'elicitation-sep1034-client-defaults':
      return { steps: [call('test_client_elicitation_defaults')] };
    case 'sse-retry':
      // Its server closes the call's SSE stream after a priming event with `retry: 500` and
      // answers on the GET stream the client must reopen (with Last-Event-ID) after that delay.
      return { steps: [call('test_reconnection')] };
    case 'json-schema-2020-12-preservation':
      // Its server lists a tool whose input schema uses JSON Schema 2020-12 ($schema, $defs,
      // $anchor, allOf/anyOf, if/then/else, additionalProperties) and an echo tool: the schema as
      // mcp-live hands it to an agent goes back through the echo, and the scenario compares it
      // with the one it served, keyword by keyword.
      return { steps: [{ call: 'json_schema_echo', echoSchemaOf: 'json_schema_2020_12_tool' }] };
    case 'request-metadata':
      // Every request mcp-live sends is judged (the MCP-Protocol-Version header, the `_meta`
      // envelope); the first is refused with an unsupported-version error it must retry past.
      // Connecting and the lists it fetches are the requests; its tool list is empty.
      return undefined;
    case 'sep-2322-client-request-state':
      // Multi-round-trip calls: one whose input_required result carries requestState (echoed
      // byte for byte on the retry, under a new JSON-RPC id), one without (none sent back), one
      // answered without resultType (never retried); an unrelated call between the rounds of the
      // first must carry neither inputResponses nor requestState. The server speaks 2026-07-28,
      // whose results must carry resultType: mcp-live ends that call with an error saying so
      // (decision 376) and goes on, which the step takes as its answer.
      return {
        steps: [
          call('test_mrtr_echo_state'),
          call('test_mrtr_no_state'),
          { ...call('test_mrtr_no_result_type'), refusal: /missing required resultType/ },
        ],
        whileAsked: call('test_mrtr_unrelated'),
      };
    case 'http-standard-headers':
      // Mcp-Method on every POST, Mcp-Name on the named ones: a call of each tool (one with a
      // hyphen in its name), the prompt, and both resources (a percent-encoded path, a query).
      return {
        steps: [
          call('test_headers'),
          call('my-hyphenated-tool'),
          { prompt: 'test_prompt', args: {} },
          { read: 'file:///path/to/file%20name.txt' },
          { read: 'https://example.com/resource?id=123' },
        ],
      };
    case 'http-custom-headers':
      // The calls the scenario names in its context: arguments marked `x-mcp-header` go out as
      // Mcp-Param-* headers too (Base64 where a value is not plain ASCII), null ones not at all.
      return { steps: (context.toolCalls ?? []).map((c) => call(c.name, c.arguments ?? {})) };
    case 'http-invalid-tool-headers':
      // One valid tool among eleven whose `x-mcp-header` is malformed: mcp-live must offer only
      // the valid one. Every tool it offers is called, so one it should have left out is caught.
      return { steps: [{ callEveryListed: (tool) => (tool === 'valid_tool' ? { region: 'us-west1' } : {}) }] };
    default:
      return name.startsWith('auth/') ? { steps: [call('test-tool')], optional: true } : undefined;
  }
}

function qualified(tools, tool) {
  return tools.find((t) => t === tool || t.endsWith(`__${tool}`));
}

/** A URL without its query: what the log may show of an authorization or callback URL. */
function withoutQuery(url) {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname}`;
  } catch {
    return '(not a URL)';
  }
}

const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}');
const { oauth, env: secrets } = oauthFor(scenario, context);
const plan = planFor(scenario, context);

const home = mkdtempSync(join(tmpdir(), 'mcp-live-conf-home-'));
const workspace = mkdtempSync(join(tmpdir(), 'mcp-live-conf-ws-'));
mkdirSync(join(home, '.qwen'));
writeFileSync(
  join(home, '.qwen', 'settings.json'),
  `${JSON.stringify({ mcpServers: { [SERVER]: { httpUrl: serverUrl, ...(oauth ? { oauth } : {}) } } }, null, 2)}\n`,
);
log(`scenario ${scenario}, server ${serverUrl}, oauth ${oauth ? Object.keys(oauth).join(',') : 'none'}`);

// The scenario's context is the runner's, not the user's: mcp-live sees only what a user's
// environment would hold (and the secrets its settings name).
const { MCP_CONFORMANCE_CONTEXT: _context, ...inherited } = process.env;
const child = spawn(process.execPath, [CLI, '--json', '--cwd', workspace], {
  env: { ...inherited, ...secrets, HOME: home, XDG_RUNTIME_DIR: '' },
  stdio: ['pipe', 'pipe', 'pipe'],
});
createInterface({ input: child.stderr }).on('line', (line) => console.error('[mcp-live]', line));

let nextId = 1;
let authAttempts = 0;
let authInFlight = false;
/** idle → working (a step sent) → (retry-pending → working) → done */
let phase = 'idle';
/** The steps still to run (`plan.steps`, with `callEveryListed` expanded once listed); the first is the one in flight. */
const steps = [...(plan?.steps ?? [])];
let answered = 0;
let lastAnswer;
/** The step-up retry of the step in flight: once per step. */
let retried = false;
/** An elicitation held until the `whileAsked` step is answered. */
let heldElicitation;
let state = 'unknown';
let tools = [];
let finished = false;

const send = (command) => {
  const shown = command.cmd === 'elicit' ? { ...command, content: '{…}' } : command;
  log('→', JSON.stringify(shown));
  child.stdin.write(`${JSON.stringify(command)}\n`);
};

const deadline = setTimeout(() => finish(1, `deadline of ${DEADLINE_MS} ms passed (server state ${state}, phase ${phase})`), DEADLINE_MS);

child.on('exit', (code, signal) => {
  if (!finished) finish(1, `mcp-live exited early (code ${code}, signal ${signal})`);
});
// The runner's timeout: end mcp-live (and its servers) before going, as on the deadline.
process.on('SIGTERM', () => finish(1, 'stopped by the runner'));

/** Ends the session (`quit`, then a signal if it lingers), removes the temp dirs, exits. */
function finish(code, message) {
  if (finished) return;
  finished = true;
  clearTimeout(deadline);
  if (message) console.error(`[adapter] ${code === 0 ? '' : 'FAILED: '}${message}`);
  const done = () => {
    rmSync(home, { recursive: true, force: true });
    rmSync(workspace, { recursive: true, force: true });
    process.exit(code);
  };
  if (child.exitCode !== null || child.signalCode !== null) return done();
  const kill = setTimeout(() => child.kill('SIGTERM'), QUIT_GRACE_MS);
  child.once('exit', () => {
    clearTimeout(kill);
    done();
  });
  if (child.stdin.writable) send({ cmd: 'quit' });
}

function startAuth() {
  if (authInFlight) return;
  if (authAttempts >= MAX_AUTH_ATTEMPTS) return finish(1, `server still needs authorization after ${MAX_AUTH_ATTEMPTS} auth attempts`);
  authAttempts++;
  authInFlight = true;
  send({ cmd: 'auth', server: SERVER, id: `auth-${nextId++}` });
}

const describe = (step) => (step.prompt ? `prompt ${step.prompt}` : step.read ? `resource ${step.read}` : step.call ? `tool ${step.call}` : 'tools listed');

/** Sends the first step, or finishes when none is left. */
function runStep() {
  const step = steps[0];
  if (step === undefined) {
    phase = 'done';
    if (!plan) return finish(0, 'connected; nothing to call');
    return finish(0, `${answered} step(s) answered; last: ${JSON.stringify(lastAnswer).slice(0, 200)}`);
  }
  phase = 'working';
  const id = `step-${nextId++}`;
  if (step.callEveryListed !== undefined || step.echoSchemaOf !== undefined) return send({ cmd: 'tools', schemas: true, id });
  if (step.prompt !== undefined) return send({ cmd: 'get-prompt', server: SERVER, name: step.prompt, args: step.args, id });
  if (step.read !== undefined) return send({ cmd: 'read-resource', server: SERVER, uri: step.read, id });
  const tool = qualified(tools, step.call);
  if (!tool) {
    if (plan.optional && answered === 0) return finish(0, `connected; tools listed (${tools.length}), no ${step.call}`);
    return finish(1, `tool ${step.call} not among ${JSON.stringify(tools)}`);
  }
  return send({ cmd: 'call', tool, args: step.args, id });
}

/**
 * The answer to `tools` with schemas, for the step that asked: `callEveryListed` becomes a call
 * of each of the server's tools; `echoSchemaOf` becomes the echo call with that tool's input
 * schema, as listed.
 */
function onToolsListed(step, event) {
  const listed = (Array.isArray(event.data?.tools) ? event.data.tools : []).filter((t) => t.server === SERVER);
  if (step.callEveryListed !== undefined) {
    log(`offered: ${JSON.stringify(listed.map((t) => t.tool))}`);
    steps.splice(0, 1, ...listed.map((t) => ({ call: t.tool, args: step.callEveryListed(t.tool) })));
    return runStep();
  }
  const source = listed.find((t) => t.tool === step.echoSchemaOf);
  if (source?.inputSchema === undefined) return finish(1, `no input schema listed for ${step.echoSchemaOf} among ${JSON.stringify(listed.map((t) => t.name))}`);
  log(`schema of ${step.echoSchemaOf}: keys ${Object.keys(source.inputSchema).join(',')}`);
  steps[0] = { call: step.call, args: { schema: source.inputSchema } };
  return runStep();
}

/** Plays the browser: opens the authorization URL and follows its redirects to mcp-live's callback. */
async function openInBrowser(url) {
  try {
    const response = await fetch(url, { redirect: 'follow' });
    await response.text();
    log(`browser: ${withoutQuery(url)} → ${withoutQuery(response.url)} (${response.status})`);
  } catch (error) {
    log(`browser: ${withoutQuery(url)} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function onServer(event) {
  state = event.state;
  if (Array.isArray(event.tools)) tools = event.tools;
  log('←', `server ${event.state}`, `tools ${JSON.stringify(tools)}`, event.error ? `error ${event.error}` : '');
  if (event.state === 'needs_auth') return startAuth();
  if (event.state === 'error' && !authInFlight) return finish(1, `server ${SERVER} ended in error: ${event.error ?? ''}`);
  if (event.state !== 'connected') return;
  if (phase === 'idle') return runStep();
  if (phase === 'retry-pending' && !authInFlight) runStep();
}

function onResult(event) {
  log('←', `result ${event.id} ok=${event.ok}`, event.ok ? '' : `error ${event.error}`);
  const id = String(event.id ?? '');
  if (id.startsWith('auth-')) {
    authInFlight = false;
    if (!event.ok) {
      if (state === 'needs_auth' || phase === 'retry-pending') return startAuth();
      if (state === 'error') return finish(1, `server ${SERVER} ended in error after a failed auth`);
      return undefined;
    }
    // The token is stored and the server reconnects: the retry waits for its `connected`,
    // unless it already is (a reconnect that came before this answer).
    if (phase === 'retry-pending' && state === 'connected') runStep();
    return undefined;
  }
  if (id.startsWith('asked-')) return onAskedAnswered(event);
  if (!id.startsWith('step-')) return undefined;
  const step = steps[0];
  if (step === undefined) return undefined;
  if (event.ok && (step.callEveryListed !== undefined || step.echoSchemaOf !== undefined)) return onToolsListed(step, event);
  const refused = !event.ok && step.refusal?.test(String(event.error)) === true;
  if (refused) log(`${describe(step)}: refused as the plan allows: ${event.error}`);
  if (event.ok || refused) {
    answered++;
    lastAnswer = event.ok ? event.data : { refused: event.error };
    steps.shift();
    retried = false;
    return runStep();
  }
  if (!retried && NEEDS_AUTH_ERROR.test(String(event.error))) {
    retried = true;
    phase = 'retry-pending';
    return startAuth();
  }
  return finish(1, `${describe(step)} failed: ${event.error}`);
}

/** Accepts an elicitation (`"content":{}`: the form's defaults). */
const accept = (event) => send({ cmd: 'elicit', id: event.id, action: 'accept', content: {} });

/**
 * An elicitation: accepted — except the first one of a plan with `whileAsked`, which is held
 * while that step is sent and answered (a request between two rounds of a multi-round-trip call).
 */
function onElicitation(event) {
  log('←', `elicitation ${event.id}: ${event.message}`);
  if (plan?.whileAsked === undefined || heldElicitation !== undefined) return accept(event);
  heldElicitation = event;
  const tool = qualified(tools, plan.whileAsked.call);
  if (!tool) return finish(1, `tool ${plan.whileAsked.call} not among ${JSON.stringify(tools)}`);
  return send({ cmd: 'call', tool, args: plan.whileAsked.args, id: `asked-${nextId++}` });
}

function onAskedAnswered(event) {
  if (!event.ok) return finish(1, `${describe(plan.whileAsked)} (sent while an elicitation was open) failed: ${event.error}`);
  return accept(heldElicitation);
}

const handlers = {
  server: (event) => (event.name === SERVER ? onServer(event) : undefined),
  'auth-required': (event) => {
    log('←', `auth-required ${withoutQuery(event.url)}`);
    void openInBrowser(event.url);
  },
  elicitation: onElicitation,
  result: onResult,
};

createInterface({ input: child.stdout }).on('line', (line) => {
  if (finished || line.trim() === '') return;
  let event;
  try {
    event = JSON.parse(line);
  } catch {
    return log('not JSON:', line.slice(0, 200));
  }
  const handler = handlers[event.type];
  if (handler) handler(event);
  else log('←', event.type);
});
