#!/usr/bin/env node
/**
 * `npm run clients`: points real MCP clients — Claude Code, Gemini CLI, Qwen Code and the MCP
 * Inspector — at `mcp-live serve --stdio` and records what each does, in docs/clients.md and
 * bench/results/clients.json. Like `npm run conformance` it installs from the registry into a
 * cache outside the project (~/.cache/mcp-live/clients) and is not part of `npm test`.
 *
 * No model and no API key. Every client runs with a throw-away HOME (and XDG directories) and an
 * environment built from scratch, so no key of the machine's reaches it. What needs no model is
 * run as it is: each client's own `mcp add` and `mcp list`, the Inspector's CLI mode. What a
 * client does in a session — the tool names it offers its model, a call, whether tools added while
 * it stays attached reach it, with and without `--restart-on-change` — is driven through a stub
 * model on 127.0.0.1 (scripts/clientsStubModel.mjs) that the client reaches by its own base-URL
 * setting; where a client insists on a key being set, the placeholder `no-key-local-stub` is set,
 * and it only ever goes to that stub. The stub records what the client sends and decides which
 * tool it "calls"; everything else is the client's own behaviour.
 *
 * Qwen Code 0.24, Claude Code 2.1 and the Inspector 2.x need Node 22 (their `engines`): a Node 22
 * runtime from the registry (`node-<platform>-<arch>`, as conformance.mjs does) is installed into
 * the same cache and put first on the clients' PATH. mcp-live itself runs on this script's Node.
 *
 * Needs the built CLI (dist/src/cli/main.js: `npm run build`); re-run it after a rebuild — it
 * records the names and behaviour it sees and asserts no particular form.
 */
import { Buffer } from 'node:buffer';
import { execFile, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify, stripVTControlCharacters } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { startStubModel } from './clientsStubModel.mjs';

const RUNTIME = { name: `node-${process.platform}-${process.arch}`, version: '22.23.5' };
const CLIENTS = {
  claude: { pkg: '@anthropic-ai/claude-code', version: '2.1.332', title: 'Claude Code' },
  gemini: { pkg: '@google/gemini-cli', version: '0.61.0', title: 'Gemini CLI' },
  qwen: { pkg: '@qwen-code/qwen-code', version: '0.24.4', title: 'Qwen Code' },
};
// The Inspector's CLI mode (`mcp-inspector --cli`) ships with the Inspector. The separate
// `@modelcontextprotocol/inspector-cli` is tried too and its outcome recorded (1.0.3 calls itself
// deprecated and, installed on its own, fails to start).
const INSPECTOR = { pkg: '@modelcontextprotocol/inspector', version: '2.12.0' };
const INSPECTOR_CLI = { pkg: '@modelcontextprotocol/inspector-cli', version: '1.0.3' };
const PLACEHOLDER_KEY = 'no-key-local-stub';
const PROMPT = 'What time is it?';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..');
const CLI = join(repo, 'dist/src/cli/main.js');
const RECORDER = join(repo, 'scripts/clientsRecorder.mjs');
const cache = join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'mcp-live', 'clients');
const modules = join(cache, 'node_modules');
const bin = (name) => join(modules, '.bin', name);
const runtimeNode = join(modules, RUNTIME.name, 'bin', 'node');
const run = promisify(execFile);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
/** Tools of the gateway's backends, whatever prefix a client or the gateway puts before them. */
const GATEWAY_TOOL = /(clock|everything|late)__[A-Za-z0-9_-]+$/;
/** A function call's id in a client's history (Gemini CLI: `NAME_<ms>_<n>`), not a tool name. */
const CALL_ID = /_\d{10,}_\d+$/;

if (!existsSync(CLI)) {
  console.error('clients: dist/src/cli/main.js is missing; run `npm run build` first');
  process.exit(1);
}

function installedVersion(pkg) {
  try {
    return JSON.parse(readFileSync(join(modules, pkg, 'package.json'), 'utf8')).version;
  } catch {
    return undefined;
  }
}

function install() {
  const wanted = [RUNTIME, ...Object.values(CLIENTS), INSPECTOR, INSPECTOR_CLI].map((c) => [c.pkg ?? c.name, c.version]);
  mkdirSync(cache, { recursive: true });
  writeFileSync(join(cache, 'package.json'), `${JSON.stringify({ name: 'mcp-live-clients', private: true, dependencies: Object.fromEntries(wanted) }, null, 2)}\n`);
  const missing = wanted.filter(([pkg, version]) => installedVersion(pkg) !== version);
  if (missing.length > 0) {
    console.log(`clients: installing ${missing.map(([n, v]) => `${n}@${v}`).join(', ')} into ${cache}`);
    const npm = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: cache, stdio: 'inherit' });
    if (npm.status !== 0) process.exit(npm.status ?? 1);
  }
  const version = spawnSync(runtimeNode, ['--version'], { encoding: 'utf8' }).stdout?.trim();
  if (!version?.startsWith('v22.')) {
    console.error(`clients: the Node 22 runtime in ${cache} does not run (${version})`);
    process.exit(1);
  }
  return version;
}

const json = (file, value) => {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
};

/**
 * A throw-away world: a HOME for the clients (with their telemetry and update checks off), and
 * mcp-live's own profile in it (`live`, ~/.live) so a client's ~/.qwen or ~/.gemini — where it
 * writes the gateway's entry — is never read by the gateway, and a workspace.
 */
function world() {
  const root = mkdtempSync(join(tmpdir(), 'mcp-live-clients-'));
  const home = join(root, 'home');
  const cwd = join(root, 'project');
  mkdirSync(cwd, { recursive: true });
  const everything = join(repo, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
  const servers = {
    clock: { command: process.execPath, args: [join(repo, 'examples/demo/servers/clock-server.mjs')] },
    everything: { command: process.execPath, args: [everything, 'stdio'] },
  };
  const settings = join(home, '.live', 'settings.json');
  json(settings, { mcpServers: servers });
  const quiet = { privacy: { usageStatisticsEnabled: false }, telemetry: { enabled: false }, general: { enableAutoUpdate: false, enableAutoUpdateNotification: false } };
  // Gemini CLI: the key-based auth (its base URL then comes from GOOGLE_GEMINI_BASE_URL), and the
  // project trusted — it disables every MCP server in a folder it does not trust.
  json(join(home, '.gemini', 'settings.json'), { ...quiet, security: { auth: { selectedType: 'gemini-api-key' } } });
  json(join(home, '.gemini', 'trustedFolders.json'), { [cwd]: 'TRUST_FOLDER' });
  json(join(home, '.qwen', 'settings.json'), quiet);
  const env = {
    PATH: `${dirname(runtimeNode)}:${process.env.PATH}`,
    HOME: home,
    USERPROFILE: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_DATA_HOME: join(home, '.local/share'),
    XDG_STATE_HOME: join(home, '.local/state'),
    TERM: 'dumb',
    NO_COLOR: '1',
    CI: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
    DISABLE_AUTOUPDATER: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    QWEN_CODE_SUPPRESS_YOLO_WARNING: '1',
  };
  const serve = [process.execPath, CLI, 'serve', '--stdio', '--profile', 'live', '--cwd', cwd];
  // What the client is given to run: the same, through the recorder (scripts/clientsRecorder.mjs).
  const rpc = join(root, 'rpc.ndjson');
  const w = { root, home, cwd, env, settings, servers, serve, rpc, clientServe: () => [process.execPath, RECORDER, rpc, ...w.serve] };
  return w;
}

async function attempt(what, f) {
  try {
    return await f();
  } catch (error) {
    const text = stripVTControlCharacters(String(error?.stderr || error?.stdout || error?.message || error)).trim();
    return { error: `${what}: ${text.split('\n').filter(Boolean).slice(-3).join(' | ').slice(0, 400)}`, text };
  }
}

/** The line of a failure's output that says why (an `Error:` line), else its end. */
const why = (failure) => (typeof failure === 'object' ? (failure.text ?? '').split('\n').find((l) => /\bError\b/.test(l))?.trim() ?? failure.error : failure);

const lines = (text) => text.split('\n').map((l) => l.trimEnd()).filter(Boolean);

/** A child with its stdin closed (Claude Code waits for piped input otherwise), ended after `timeoutMs`. */
function runChild(command, args, { env, cwd, timeoutMs = 180_000 }) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGTERM'), timeoutMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve({ code: -1, signal: null, stdout, stderr: String(error) });
    });
  });
}

/** The client's own one-line add, as a user types it (with this build's CLI in place of the linked `mcp-live`). */
function addArgs(name, serve) {
  const [command, ...args] = serve;
  // Claude Code ends its own options at `--`; Gemini CLI and Qwen Code take the rest of the line as
  // the command's arguments and refuse a `--` ("Not enough non-option arguments").
  return ['mcp', 'add', 'mcp-live', ...(name === 'claude' ? ['--'] : []), command, ...args];
}

async function add(name, w) {
  const added = await attempt('mcp add', () => run(bin(name), addArgs(name, w.clientServe()), { cwd: w.cwd, env: w.env, timeout: 120_000 }));
  return added.error ?? 'ok';
}

async function list(name, w) {
  const listed = await attempt('mcp list', () => run(bin(name), ['mcp', 'list'], { cwd: w.cwd, env: w.env, timeout: 120_000 }));
  // Gemini CLI prints its list on stderr.
  const text = stripVTControlCharacters(`${listed.stdout ?? ''}\n${listed.stderr ?? ''}`).replaceAll(w.root, '<tmp>');
  const line = lines(text).find((l) => l.includes('mcp-live')) ?? '';
  return { list: listed.error ?? lines(text).slice(-6), connected: /connected/i.test(line) && !/disconnected|failed/i.test(line), line };
}

/** How each client is pointed at the stub model, and its non-interactive one-prompt mode. */
function session(name, url) {
  if (name === 'claude') {
    return { env: { ANTHROPIC_BASE_URL: url, ANTHROPIC_API_KEY: PLACEHOLDER_KEY }, args: ['-p', PROMPT, '--allowedTools', 'mcp__mcp-live', '--output-format', 'json'] };
  }
  if (name === 'gemini') {
    return { env: { GOOGLE_GEMINI_BASE_URL: url, GEMINI_API_KEY: PLACEHOLDER_KEY }, args: ['-p', PROMPT, '--yolo', '--output-format', 'json'] };
  }
  return { env: { OPENAI_BASE_URL: `${url}/v1`, OPENAI_API_KEY: PLACEHOLDER_KEY, OPENAI_MODEL: 'stub' }, args: ['-p', PROMPT, '--yolo', '--output-format', 'json'] };
}

/** What the recorder saw since entry `from`, per session of the client with the gateway. */
function recorded(w, from) {
  const entries = existsSync(w.rpc)
    ? lines(readFileSync(w.rpc, 'utf8'))
        .flatMap((l) => {
          try {
            return [JSON.parse(l)];
          } catch {
            return [];
          }
        })
        .slice(from)
    : [];
  const sessions = [...new Set(entries.map((e) => e.session))].map((id) => {
    const own = entries.filter((e) => e.session === id);
    const t0 = own[0]?.t ?? 0;
    const changedAt = own.find((e) => e.dir === 'server' && e.method === 'notifications/tools/list_changed')?.t;
    return {
      startedMs: t0,
      ended: own.some((e) => e.dir === 'end'),
      toolsLists: own.filter((e) => e.dir === 'client' && e.method === 'tools/list').length,
      calls: own.filter((e) => e.dir === 'client' && e.method === 'tools/call').length,
      listChangedReceived: changedAt !== undefined,
      relistedAfterListChanged: changedAt !== undefined && own.some((e) => e.dir === 'client' && e.method === 'tools/list' && e.t >= changedAt),
      // What the gateway told it and what it asked for from the first list_changed on, in order.
      afterListChanged: changedAt === undefined ? [] : [...new Set(own.filter((e) => e.t >= changedAt && e.method && e.method !== 'tools/call').map((e) => `${e.dir === 'server' ? '←' : '→'} ${e.method}`))],
      protocol: protocolOf(own),
    };
  });
  const first = sessions[0]?.startedMs ?? 0;
  return { entries: entries.length, sessions: sessions.map((x) => ({ ...x, startedMs: x.startedMs - first })) };
}

/**
 * The protocol revision a session spoke, from what the recorder kept: the requests it opened with,
 * the revision it asked for first (an `initialize`'s, or a 2026-era request's `_meta`), what the
 * gateway answered (an `initialize` result's revision, or the list a `server/discover` answer
 * gives), and the era: "2026-07-28" when a request after the opening carried a 2026-era revision,
 * else the 2025 era when an `initialize` was answered.
 */
function protocolOf(own) {
  const requests = own.filter((e) => e.dir === 'client' && e.method && !e.method.startsWith('notifications/'));
  const asked = requests.find((e) => e.version !== undefined)?.version;
  const answered = own.find((e) => e.dir === 'server' && e.response !== undefined && e.version !== undefined)?.version;
  const modern = requests.some((e) => e.method !== 'initialize' && e.method !== 'server/discover' && typeof e.version === 'string' && e.version >= '2026');
  const handshake = requests.some((e) => e.method === 'initialize');
  return {
    opening: requests.slice(0, 2).map((e) => e.method),
    ...(asked !== undefined ? { asked } : {}),
    ...(answered !== undefined ? { answered } : {}),
    era: modern ? 'modern' : handshake ? 'legacy' : 'unknown',
  };
}

const recordedCount = (w) => (existsSync(w.rpc) ? lines(readFileSync(w.rpc, 'utf8')).length : 0);

/**
 * An SDK client attached to the same gateway for the whole run: sees the gateway's own
 * `tools/list_changed` and when a new server's tools are listed.
 */
async function observer(w) {
  const [command, ...args] = w.serve;
  const client = new Client({ name: 'mcp-live-clients-observer', version: '1.0.0' });
  let listChanged = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => void (listChanged += 1));
  await client.connect(new StdioClientTransport({ command, args, env: w.env, cwd: w.cwd, stderr: 'ignore' }));
  const names = async () => (await client.listTools()).tools.map((t) => t.name);
  return {
    client,
    names,
    get listChanged() {
      return listChanged;
    },
    async until(predicate, ms = 30_000) {
      const t0 = Date.now();
      while (Date.now() - t0 < ms) {
        const now = await names();
        if (predicate(now)) return now;
        await sleep(200);
      }
      throw new Error(`not listed within ${ms} ms`);
    },
    close: () => client.close(),
  };
}

/**
 * One `-p` run of a client against the stub model. `change`: during the first model turn (while
 * the client is attached and waiting for its model), a server is added to the gateway's settings;
 * the turn is answered once the gateway lists it, plus a few seconds for the client to react.
 */
async function drive(name, w, { change = false, cold = false } = {}) {
  const from = recordedCount(w);
  // Warm: the gateway is up (an observer attached) before the client starts; cold: the client's
  // own relay starts it.
  const look = cold ? undefined : await observer(w);
  const timeline = {};
  const now = (names) => names.find((n) => /clock__now$/.test(n));
  const late = (names) => names.find((n) => /late__list_notes$/.test(n));
  const stub = await startStubModel({
    offers: (n) => /clock__now$/.test(n),
    mentioned: /\bmcp_{1,2}mcp-live_{1,2}[A-Za-z0-9_-]+/g,
    async onTurn(turn, index) {
      if (index === 0) {
        if (change) {
          const t0 = Date.now();
          json(w.settings, { mcpServers: { ...w.servers, late: { command: process.execPath, args: [join(repo, 'examples/demo/servers/notes-server.mjs')] } } });
          await look.until((names) => names.some((n) => /late__/.test(n)));
          timeline.listedMs = Date.now() - t0;
          // The relay's --restart-on-change waits 1 s for the change to settle; give the client as
          // long again to reconnect or re-list on its own.
          await sleep(4000);
        }
        return now(turn.tools);
      }
      if (index === 1) return late(turn.tools) ?? now(turn.tools);
      return undefined;
    },
  });
  try {
    const s = session(name, stub.url);
    const started = Date.now();
    const out = await runChild(bin(name), s.args, { env: { ...w.env, ...s.env }, cwd: w.cwd });
    return {
      exit: out.code,
      ...(out.code !== 0 ? { stderr: stripVTControlCharacters(out.stderr).replaceAll(w.root, '<tmp>').split('\n').filter(Boolean).slice(-4) } : {}),
      ms: Date.now() - started,
      modelRequests: stub.requests,
      turns: stub.turns.map((t) => ({
        names: t.tools.filter((n) => GATEWAY_TOOL.test(n) && !CALL_ID.test(n)),
        inPromptText: t.inText.filter((n) => GATEWAY_TOOL.test(n) && !CALL_ID.test(n)).length,
        ...(t.toolResult !== undefined ? { previousCallResult: t.toolResult.replaceAll(w.root, '<tmp>').slice(0, 240) } : {}),
        ...(t.called ? { calls: t.called } : {}),
      })),
      rpc: recorded(w, from),
      ...(change ? { listedMs: timeline.listedMs, observerListChanged: look.listChanged } : {}),
    };
  } finally {
    await stub.close();
    await look?.close();
  }
}

function protocolRow(name, p) {
  if (!p) return `| ${name} | — | — | — | not recorded |`;
  const versions = (v) => (v === undefined ? '—' : Array.isArray(v) ? v.map((x) => `\`${x}\``).join(', ') : `\`${v}\``);
  const era = p.era === 'modern' ? '2026-07-28' : p.era === 'legacy' ? '2025 (handshake)' : 'unknown';
  return `| ${name} | ${p.opening.map((m) => `\`${m}\``).join(', ')} | ${versions(p.asked)} | ${versions(p.answered)} | ${era} |`;
}

async function inspector(w) {
  const [command, ...args] = w.serve;
  const call = async (...extra) => {
    const { stdout } = await run(runtimeNode, [bin('mcp-inspector'), '--cli', command, ...args, ...extra, '--format', 'json', '-q'], { cwd: w.cwd, env: w.env, timeout: 120_000 });
    const parsed = JSON.parse(stdout);
    return parsed.result ?? parsed;
  };
  const tools = await attempt('tools/list', () => call('--method', 'tools/list'));
  const names = tools.tools?.map((t) => t.name) ?? [];
  const echo = names.find((n) => n.endsWith('clock__echo')) ?? names.find((n) => n.endsWith('__echo'));
  const called = echo ? await attempt('tools/call', () => call('--method', 'tools/call', '--tool-name', echo, '--tool-arg', 'text=hello')) : { error: 'no echo tool listed' };
  const resources = await attempt('resources/list', () => call('--method', 'resources/list'));
  const uri = resources.resources?.[0]?.uri;
  const read = uri ? await attempt('resources/read', () => call('--method', 'resources/read', '--uri', uri)) : { error: 'no resource listed' };
  const prompts = await attempt('prompts/list', () => call('--method', 'prompts/list'));
  const simple = prompts.prompts?.find((p) => !(p.arguments ?? []).some((a) => a.required)) ?? prompts.prompts?.[0];
  const got = simple ? await attempt('prompts/get', () => call('--method', 'prompts/get', '--prompt-name', simple.name)) : { error: 'no prompt listed' };
  const standalone = await attempt('inspector-cli', () => run(runtimeNode, [bin('mcp-inspector-cli'), command, ...args, '--method', 'tools/list'], { cwd: w.cwd, env: w.env, timeout: 60_000 }));
  return {
    version: installedVersion(INSPECTOR.pkg),
    tools: tools.error ?? names.length,
    sampleNames: names.slice(0, 6),
    call: called.error ?? { tool: echo, text: called.content?.[0]?.text },
    read: read.error ?? { uri, contents: read.contents?.length },
    get: got.error ?? { prompt: simple.name, messages: got.messages?.length },
    allValid: names.length > 0 && names.every((n) => /^[A-Za-z0-9_-]{1,64}$/.test(n)),
    standaloneCli: {
      version: installedVersion(INSPECTOR_CLI.pkg),
      outcome: standalone.error ? why(standalone).replaceAll(modules, '<cache>/node_modules') : `ok: ${JSON.parse(standalone.stdout).tools?.length} tools`,
    },
  };
}

/** An SDK client stays attached while a server is added to the settings: when does the gateway say so? */
async function attached(w) {
  const look = await observer(w);
  try {
    const before = (await look.names()).length;
    const t0 = Date.now();
    json(w.settings, { mcpServers: { ...w.servers, late: { command: process.execPath, args: [join(repo, 'examples/demo/servers/notes-server.mjs')] } } });
    const after = await look.until((names) => look.listChanged > 0 && names.some((t) => t.startsWith('late__')));
    return { before, after: after.length, listChanged: look.listChanged, ms: Date.now() - t0 };
  } finally {
    await look.close();
  }
}

async function stopGateway(w) {
  await attempt('serve --stop', () => run(process.execPath, [CLI, 'serve', '--stop', '--profile', 'live', '--cwd', w.cwd], { env: w.env, timeout: 30_000 }));
}

async function inWorld(f, { restartOnChange = false } = {}) {
  const w = world();
  if (restartOnChange) w.serve = [...w.serve, '--restart-on-change'];
  try {
    return await f(w);
  } finally {
    await stopGateway(w);
    rmSync(w.root, { recursive: true, force: true });
  }
}

/**
 * Whether a client's installed code registers its own handler for `notifications/tools/list_changed`
 * (the SDK's own opt-in `listChanged` helper does not count: it acts only if the client asks for
 * it). Read from the package's bundle, or for Claude Code its native binary.
 */
function listChangedHandler(pkg) {
  const needles = [
    'setNotificationHandler(ToolListChangedNotificationSchema',
    'setNotificationHandler("notifications/tools/list_changed"',
    'tools/list_changed notification, refreshing tools',
  ].map((n) => Buffer.from(n));
  const root = join(modules, pkg);
  const files = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!['node_modules', 'bundled', 'web-shell', 'vendor', 'locales'].includes(entry.name)) walk(path);
      } else if (/\.(c|m)?js$/.test(entry.name)) files.push(path);
    }
  };
  walk(root);
  const own = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  for (const target of Object.values(typeof own.bin === 'string' ? { x: own.bin } : (own.bin ?? {}))) {
    const path = realpathSync(join(root, target));
    if (!files.includes(path)) files.push(path);
  }
  for (const file of files) {
    if (statSync(file).size === 0) continue;
    const bytes = readFileSync(file);
    const hit = needles.find((n) => bytes.indexOf(n) >= 0);
    if (hit) return { handler: true, evidence: hit.toString(), file: file.slice(root.length + 1) };
  }
  return { handler: false, scanned: files.length };
}

const node22 = install();
const results = {
  ranAt: new Date().toISOString(),
  commit: spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repo, encoding: 'utf8' }).stdout.trim(),
  distBuiltAt: statSync(CLI).mtime.toISOString(),
  node: process.version,
  clientNode: node22,
  clients: {},
};
for (const name of Object.keys(CLIENTS)) {
  const version = await inWorld(async (w) => (await attempt('--version', () => run(bin(name), ['--version'], { env: w.env, timeout: 60_000 }))).stdout?.trim());
  const r = { version, listChanged: listChangedHandler(CLIENTS[name].pkg) };
  await inWorld(async (w) => {
    r.add = await add(name, w);
    // The first session starts the gateway itself (`mcp add` connects to nothing): a cold start.
    r.cold = await drive(name, w, { cold: true });
    Object.assign(r, await list(name, w));
    r.session = await drive(name, w);
    r.attached = await drive(name, w, { change: true });
  });
  r.restartOnChange = await inWorld(
    async (w) => {
      const added = await add(name, w);
      return added === 'ok' ? drive(name, w, { change: true }) : { error: added };
    },
    { restartOnChange: true },
  );
  results.clients[name] = r;
  console.log(`clients: ${name}`, JSON.stringify(r));
}
await inWorld(async (w) => {
  results.clients.inspector = await inspector(w);
  results.attached = await attempt('attached', () => attached(w));
});
console.log('clients: inspector', JSON.stringify(results.clients.inspector));
console.log('clients: attached', JSON.stringify(results.attached));
json(join(repo, 'bench/results/clients.json'), results);
writeFileSync(join(repo, 'docs/clients.md'), report(results));
console.log('clients: wrote bench/results/clients.json and docs/clients.md');

// ---------------------------------------------------------------------------------------------

function report(r) {
  const c = r.clients;
  const names = Object.keys(CLIENTS);
  const title = (n) => CLIENTS[n].title;
  const yes = (v) => (v === true ? 'yes' : v === false ? 'no' : String(v));
  const code = (v) => `\`${String(v).replaceAll('|', '\\|').replaceAll('`', "'")}\``;
  const clip = (text, n = 90) => (text === undefined ? '—' : code(text.length > n ? `${text.slice(0, n)}…` : text));
  const listed = (x) => (x.list === undefined ? 'not run' : typeof x.list === 'string' ? `failed: ${x.list}` : x.connected ? 'connected' : `not connected: ${code(JSON.stringify(x.list))}`);
  const userAdd = { claude: 'claude mcp add mcp-live -- mcp-live serve --stdio', gemini: 'gemini mcp add mcp-live mcp-live serve --stdio', qwen: 'qwen mcp add mcp-live mcp-live serve --stdio' };
  const failed = (d) => (!d ? 'not run' : d.error ? `failed: ${d.error}` : d.exit !== 0 ? `exit ${d.exit}: ${(d.stderr ?? []).join(' ')}` : undefined);
  const first = (d) => d?.turns?.[0];
  const offersLate = (t) => (t?.names ?? []).some((n) => /late__/.test(n));
  const nextTurn = (d) => failed(d) ?? (!d.turns?.[1] ? 'no second model turn' : offersLate(d.turns[1]) ? 'yes' : 'no');
  const relisted = (d) => (failed(d) ? '—' : yes(d.rpc?.sessions?.[0]?.relistedAfterListChanged ?? false));
  const sessions = (d) => (failed(d) ? '—' : `${d.rpc?.sessions?.length ?? 0}`);
  const afterCalls = (d) => (d?.turns ?? []).slice(1).map((t) => clip(t.previousCallResult, 70)).join(', then ') || '—';
  const i = c.inspector;
  const fmt = (v) => (typeof v === 'object' ? code(JSON.stringify(v)) : String(v));
  const a = r.attached;
  const verdict = (n) => {
    const p = c[n].attached;
    const x = c[n].restartOnChange;
    if (failed(p)) return `${title(n)}: not measured (${failed(p)}).`;
    const own = p.rpc?.sessions?.[0];
    if (own?.relistedAfterListChanged && offersLate(p.turns?.[1])) {
      const fine = `**${title(n)} refreshes on \`tools/list_changed\`**: it listed the tools again at once and offered the new ones on its next turn; plain \`serve --stdio\` is right for it`;
      if (failed(x)) return `${fine}.`;
      const count = x.rpc?.sessions?.length ?? 0;
      if (count <= 1) return `${fine}, and \`--restart-on-change\` left its session alone.`;
      const seen = (x.rpc.sessions[0].afterListChanged ?? []).map((m) => `\`${m}\``).join(', ');
      return `${fine}. With \`--restart-on-change\` its session still ended (after the change it saw and sent: ${seen}); it came back by itself (${count} sessions) and its calls after that got ${afterCalls(x)}.`;
    }
    const plain = own?.relistedAfterListChanged
      ? `${title(n)} listed the tools again after \`tools/list_changed\` but kept offering its model the tools it started with`
      : `**${title(n)} ignores \`tools/list_changed\`**: it never listed the tools again in the session, and kept offering its model the tools it started with`;
    if (failed(x)) return `${plain}. With \`--restart-on-change\`: not measured (${failed(x)}).`;
    const back = (x.rpc?.sessions?.length ?? 0) > 1;
    const firstAfter = x.turns?.[1]?.previousCallResult;
    const restart = back
      ? `With \`--restart-on-change\` its session ended; it came back by itself (${x.rpc.sessions.length} sessions; the new one ${x.rpc.sessions.at(-1).toolsLists > 0 ? 'listed the tools again' : 'did not list the tools'}), on its next call, which got ${clip(firstAfter, 120)}; the new tools ${offersLate(x.turns?.at(-1)) ? 'were' : 'were not'} offered to its model in that session`
      : `With \`--restart-on-change\` its session ended and it did not come back within the run`;
    return `${plain}. ${restart}.`;
  };

  return `# Real clients against \`mcp-live serve --stdio\`

Run on ${r.ranAt.slice(0, 10)} against commit ${r.commit} (dist/ built ${r.distBuiltAt.slice(0, 16).replace('T', ' ')} UTC) by \`npm run clients\`
(scripts/clients.mjs; raw results in the repository's \`bench/results/clients.json\`). mcp-live ran on Node ${r.node}, the
clients on Node ${r.clientNode} (Qwen Code 0.24, Claude Code 2.1 and the Inspector 2.x require Node 22),
installed into \`~/.cache/mcp-live/clients\`, never into the project. Re-run it after a build: it
records the names and behaviour it sees and asserts none.

How: every client ran with a throw-away HOME and XDG directories and an environment built from
scratch — no API key of the machine reached it. mcp-live ran with its own profile
(\`--profile live\`, settings in \`~/.live\`), so the client's own \`~/.qwen\` or \`~/.gemini\`, where
\`mcp add\` writes the gateway's entry, never lists the gateway to itself. Backends: the demo's
clock server and \`@modelcontextprotocol/server-everything\` (stdio). Where a session was needed, the
client ran one prompt (\`-p\`) against a stub model on 127.0.0.1 (scripts/clientsStubModel.mjs),
reached through the client's own base-URL setting (\`ANTHROPIC_BASE_URL\`, \`GOOGLE_GEMINI_BASE_URL\`,
\`OPENAI_BASE_URL\`), with the placeholder key \`${PLACEHOLDER_KEY}\` where a client requires one to
be set. The stub records the tools the client offers its model and answers with calls of them;
what the client sends the gateway is recorded by a pass-through (scripts/clientsRecorder.mjs:
methods and times only). The rest is the client's own behaviour.

## Added with the client's own command, then \`mcp list\`

| client | version | one line to add it | \`mcp add\` | \`mcp list\` |
|---|---|---|---|---|
${names.map((n) => `| ${title(n)} | ${c[n].version} | \`${userAdd[n]}\` | ${c[n].add} | ${listed(c[n])} |`).join('\n')}

The run added this build's CLI (\`node dist/src/cli/main.js serve --stdio --profile live --cwd …\`,
through the recorder) in place of \`mcp-live serve --stdio\` (the command \`npm link\` puts on the
PATH: [README](../README.md#running-it-on-your-own-project)), with the same syntax. Claude Code
needs \`--\` before the command; Gemini CLI and Qwen Code take the rest of the line (\`--stdio\`,
\`--restart-on-change\` included) as the command's arguments and refuse a \`--\` ("Not enough
non-option arguments"). Gemini CLI writes project settings by default (\`-s user\` for yours), Qwen
Code user settings, Claude Code the project's entry in \`~/.claude.json\` (\`-s user\` for every
project). Gemini CLI starts no MCP server in a folder it does not trust: the run trusted its
project in \`~/.gemini/trustedFolders.json\`.

## The names each client offers its model

| client | \`clock__now\` offered as | gateway tools offered | where | first turn with a cold gateway |
|---|---|---|---|---|
${names
  .map((n) => {
    const t = first(c[n].session);
    const cold = failed(c[n].cold) ?? `${first(c[n].cold)?.names.length ?? 0} gateway tools`;
    if (!t) return `| ${title(n)} | ${failed(c[n].session) ?? 'no model turn offered them'} | — | — | ${cold} |`;
    const where = t.inPromptText === t.names.length ? 'its prompt text (deferred tools, loaded by a tool search)' : t.inPromptText > 0 ? 'its tools and its prompt text' : 'its tools';
    return `| ${title(n)} | \`${t.names.find((x) => /clock__now$/.test(x))}\` | ${t.names.length} | ${where} | ${cold} |`;
  })
  .join('\n')}

The gateway names a tool \`SERVER__TOOL\` (${i?.sampleNames?.[0] ? `\`${i.sampleNames[0]}\`` : '—'} in the Inspector below); each client puts its
own prefix for the server it knows as \`mcp-live\` before it. "Cold gateway": the client's own
relay started the gateway (the first session after \`mcp add\`); in the other runs the gateway was
already up. A call of \`…clock__now\` through each client returned:

| client | \`tools/call\` through the client |
|---|---|
${names.map((n) => `| ${title(n)} | ${clip(c[n].session?.turns?.[1]?.previousCallResult)} |`).join('\n')}

## The protocol each client spoke with the gateway

| client | its first requests | revision it asked for | the gateway's answer | era |
|---|---|---|---|---|
${names.map((n) => protocolRow(title(n), c[n].session?.rpc?.sessions?.[0]?.protocol)).join('\n')}

"Era": 2026-07-28 when the client's requests after its opening carried that revision in their
\`_meta\` (no handshake, no session), the 2025 era when it opened with \`initialize\`. The gateway
serves both; a client that probes with \`server/discover\` and finds 2026-07-28 offered speaks it.

## The MCP Inspector (\`--cli\`, \`@modelcontextprotocol/inspector\` ${i?.version})

| request | result |
|---|---|
| tools/list | ${fmt(i?.tools)} tools, every name within \`^[A-Za-z0-9_-]{1,64}$\`: ${yes(i?.allValid)}; first names: ${(i?.sampleNames ?? []).map((n) => `\`${n}\``).join(', ')} |
| tools/call | ${fmt(i?.call)} |
| resources/read | ${fmt(i?.read)} |
| prompts/get | ${fmt(i?.get)} |

The separate \`@modelcontextprotocol/inspector-cli\` ${i?.standaloneCli?.version}: ${code(i?.standaloneCli?.outcome)}. The
Inspector's CLI mode ships with the Inspector itself (\`npx @modelcontextprotocol/inspector --cli …\`).

## A server added while a client stays attached

The gateway: an SDK client attached to \`serve --stdio\` while a server was added to the settings saw
${a?.error ? `failed: ${a.error}` : `tools ${a.before} → ${a.after}, ${a.listChanged} \`tools/list_changed\` notification(s), the new tools listed ${a.ms} ms after the save`}.

Each client, in one \`-p\` session: while it waited for its model's first answer, a server (\`late\`,
the demo's notes server) was added to the gateway's settings; the model answered once the gateway
listed the new tools and four more seconds had passed, with a call of \`…clock__now\`, then of
\`…late__list_notes\` if the client offered it by then, else of \`…clock__now\` again.

| client | lists again after \`tools/list_changed\` | new tools offered on the next turn | with \`--restart-on-change\`: sessions | new tools offered | the calls after the change |
|---|---|---|---|---|---|
${names.map((n) => `| ${title(n)} | ${relisted(c[n].attached)} | ${nextTurn(c[n].attached)} | ${sessions(c[n].restartOnChange)} | ${nextTurn(c[n].restartOnChange)} | ${afterCalls(c[n].restartOnChange)} |`).join('\n')}

${names.map((n) => `- ${verdict(n)}`).join('\n')}
- **The MCP Inspector** lists on request (\`--cli\` is one request per run).

Each client's own handler for \`notifications/tools/list_changed\`, read from its installed package:

| client | handler |
|---|---|
${names.map((n) => `| ${title(n)} | ${c[n].listChanged.handler ? `yes: ${code(c[n].listChanged.evidence)} in \`${c[n].listChanged.file}\`` : `none found in ${c[n].listChanged.scanned} files (its MCP SDK's opt-in \`listChanged\` helper is not switched on)`} |`).join('\n')}

Not driven here: the clients' interactive sessions (a terminal UI; \`/mcp\` to reconnect by hand in
Qwen Code and Gemini CLI) — whether an interactive Qwen Code offers the new tools after it came
back is not measured — and any real model.
`;
}
