#!/usr/bin/env node
/**
 * `npm run clients`: points real MCP clients at `mcp-live serve --stdio` and records what each
 * does, in docs/clients.md and bench/results/clients.json. Like `npm run conformance` it installs
 * from the registry (into ~/.cache/mcp-live/clients, never into the project) and is not part of
 * `npm test`. No model and no API key is used: every client runs with a throw-away HOME and
 * without the keys in its environment, and only what can be driven without a model is driven —
 * each client's own `mcp add` and `mcp list`, the MCP Inspector's CLI mode, and an SDK client
 * that stays attached while a server is added.
 *
 * Needs the built CLI (dist/src/cli/main.js: `npm run build`).
 */
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify, stripVTControlCharacters } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

// The Inspector's CLI mode comes with `@modelcontextprotocol/inspector` (`mcp-inspector --cli`):
// the separate `@modelcontextprotocol/inspector-cli` 1.0.3 is deprecated, and its build fails to
// start on its own ("Cannot find module …/@modelcontextprotocol/package.json").
const CLIENTS = {
  '@modelcontextprotocol/inspector': '0.15.0',
  '@google/gemini-cli': '0.61.0',
  '@qwen-code/qwen-code': '0.15.10',
  '@anthropic-ai/claude-code': '2.1.197',
};
const repo = join(dirname(fileURLToPath(import.meta.url)), '..');
const CLI = join(repo, 'dist/src/cli/main.js');
const cache = join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'mcp-live', 'clients');
const bin = (name) => join(cache, 'node_modules', '.bin', name);
const run = promisify(execFile);

if (!existsSync(CLI)) {
  console.error('clients: dist/src/cli/main.js is missing; run `npm run build` first');
  process.exit(1);
}

function install() {
  mkdirSync(cache, { recursive: true });
  const manifest = join(cache, 'package.json');
  if (!existsSync(manifest)) writeFileSync(manifest, '{"name":"mcp-live-clients","private":true}\n');
  const wanted = Object.entries(CLIENTS).filter(([name, version]) => {
    const own = join(cache, 'node_modules', name, 'package.json');
    return !existsSync(own) || JSON.parse(readFileSync(own, 'utf8')).version !== version;
  });
  if (wanted.length === 0) return;
  console.log(`clients: installing ${wanted.map(([n, v]) => `${n}@${v}`).join(', ')} into ${cache}`);
  const npm = spawnSync('npm', ['install', '--no-audit', '--no-fund', ...wanted.map(([n, v]) => `${n}@${v}`)], { cwd: cache, stdio: 'inherit' });
  if (npm.status !== 0) process.exit(npm.status ?? 1);
}

/** A throw-away world: a HOME for the clients, mcp-live's own profile in it (`live`), a workspace. */
function world() {
  const root = mkdtempSync(join(tmpdir(), 'mcp-live-clients-'));
  const home = join(root, 'home');
  const cwd = join(root, 'project');
  mkdirSync(join(home, '.live'), { recursive: true });
  mkdirSync(cwd, { recursive: true });
  const everything = join(repo, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
  const servers = {
    clock: { command: process.execPath, args: [join(repo, 'examples/demo/servers/clock-server.mjs')] },
    everything: { command: process.execPath, args: [everything, 'stdio'] },
  };
  const settings = join(home, '.live', 'settings.json');
  writeFileSync(settings, JSON.stringify({ mcpServers: servers }, null, 2));
  const env = { PATH: process.env.PATH, HOME: home, USERPROFILE: home, XDG_CONFIG_HOME: join(home, '.config'), XDG_CACHE_HOME: join(home, '.cache'), XDG_DATA_HOME: join(home, '.local/share'), TERM: 'dumb', CI: '1', NO_COLOR: '1' };
  // mcp-live's profile is `live` (~/.live): the clients' own ~/.qwen and ~/.gemini stay theirs, so
  // the gateway never reads an entry that starts itself.
  const serve = [process.execPath, CLI, 'serve', '--stdio', '--profile', 'live', '--cwd', cwd];
  return { root, home, cwd, env, settings, servers, serve };
}

async function attempt(what, f) {
  try {
    return await f();
  } catch (error) {
    return { error: `${what}: ${String(error?.stderr || error?.message || error).trim().split('\n').slice(-3).join(' | ')}` };
  }
}

const lines = (text) => text.split('\n').map((l) => l.trimEnd()).filter(Boolean);

async function cliClient(name, w) {
  const [command, ...args] = w.serve;
  const opts = { cwd: w.cwd, env: w.env, timeout: 120_000 };
  // Gemini CLI disables every server in a folder it does not trust: trust the throw-away project.
  if (name === 'gemini') {
    mkdirSync(join(w.home, '.gemini'), { recursive: true });
    writeFileSync(join(w.home, '.gemini', 'trustedFolders.json'), JSON.stringify({ [w.cwd]: 'TRUST_FOLDER' }));
  }
  // Claude Code needs `--` before the command (its own options end there); Gemini CLI and Qwen Code
  // take the rest of the line as the command's arguments, and refuse a `--`.
  const add = await attempt('mcp add', () => run(bin(name), ['mcp', 'add', 'mcp-live', ...(name === 'claude' ? ['--'] : []), command, ...args], opts));
  const list = await attempt('mcp list', () => run(bin(name), ['mcp', 'list'], opts));
  // Gemini CLI prints its list on stderr.
  const text = stripVTControlCharacters(`${list.stdout ?? ''}\n${list.stderr ?? ''}`);
  const line = lines(text).find((l) => l.includes('mcp-live')) ?? '';
  return { add: add.error ?? 'ok', list: list.error ?? lines(text).slice(-6), connected: /connected/i.test(line) && !/disconnected|failed/i.test(line), line };
}

async function inspector(w) {
  const [command, ...args] = w.serve;
  const call = async (...extra) => JSON.parse((await run(bin('mcp-inspector'), ['--cli', command, ...args, ...extra], { cwd: w.cwd, env: w.env, timeout: 120_000 })).stdout);
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
  return {
    tools: tools.error ?? names.length,
    sampleNames: names.slice(0, 6),
    call: called.error ?? { tool: echo, text: called.content?.[0]?.text },
    read: read.error ?? { uri, contents: read.contents?.length },
    get: got.error ?? { prompt: simple.name, messages: got.messages?.length },
    allValid: names.every((n) => /^[A-Za-z0-9_-]{1,64}$/.test(n)),
  };
}

/** An SDK client stays attached while a server is added to the settings: does the new tool reach it? */
async function attached(w) {
  const [command, ...args] = w.serve;
  const client = new Client({ name: 'attached-check', version: '1.0.0' });
  let changed = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => void (changed += 1));
  await client.connect(new StdioClientTransport({ command, args, env: w.env, cwd: w.cwd, stderr: 'ignore' }));
  try {
    const before = (await client.listTools()).tools.length;
    const added = { ...w.servers, late: { command: process.execPath, args: [join(repo, 'examples/demo/servers/notes-server.mjs')] } };
    const t0 = Date.now();
    writeFileSync(w.settings, JSON.stringify({ mcpServers: added }, null, 2));
    while (Date.now() - t0 < 30_000) {
      const tools = (await client.listTools()).tools.map((t) => t.name);
      if (changed > 0 && tools.some((t) => t.startsWith('late__'))) return { before, after: tools.length, listChanged: changed, ms: Date.now() - t0 };
      await new Promise((r) => setTimeout(r, 100));
    }
    return { error: `no late__ tool after 30 s (list_changed ${changed})` };
  } finally {
    await client.close();
  }
}

async function stopGateway(w) {
  await attempt('serve --stop', () => run(process.execPath, [CLI, 'serve', '--stop', '--profile', 'live', '--cwd', w.cwd], { env: w.env, timeout: 30_000 }));
}

install();
const results = { ranAt: new Date().toISOString(), commit: spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repo, encoding: 'utf8' }).stdout.trim(), node: process.version, clients: {} };
for (const name of ['claude', 'gemini', 'qwen']) {
  const w = world();
  try {
    const version = await attempt('--version', async () => (await run(bin(name), ['--version'], { env: w.env, timeout: 60_000 })).stdout.trim());
    results.clients[name] = { version, ...(await cliClient(name, w)) };
  } finally {
    await stopGateway(w);
    rmSync(w.root, { recursive: true, force: true });
  }
  console.log(`clients: ${name}`, JSON.stringify(results.clients[name]));
}
{
  const w = world();
  try {
    results.clients.inspector = { version: CLIENTS['@modelcontextprotocol/inspector'], ...(await inspector(w)) };
    results.attached = await attempt('attached', () => attached(w));
  } finally {
    await stopGateway(w);
    rmSync(w.root, { recursive: true, force: true });
  }
  console.log('clients: inspector', JSON.stringify(results.clients.inspector));
  console.log('clients: attached', JSON.stringify(results.attached));
}
mkdirSync(join(repo, 'bench/results'), { recursive: true });
writeFileSync(join(repo, 'bench/results/clients.json'), `${JSON.stringify(results, null, 2)}\n`);
writeFileSync(join(repo, 'docs/clients.md'), report(results));
console.log('clients: wrote bench/results/clients.json and docs/clients.md');

/**
 * How each client takes `notifications/tools/list_changed`, read from its installed bundle (the
 * strings below are what each bundle holds for it; no model is needed to see them).
 */
function refreshes() {
  const read = (file) => (existsSync(file) ? readFileSync(file, 'latin1') : '');
  const modules = join(cache, 'node_modules');
  const claude = read(join(modules, '@anthropic-ai/claude-code/bin/claude.exe'));
  const gemini = ['chunk-5FZXKDXH.js', 'chunk-JDPZ4CE3.js', 'chunk-Y2J3C62M.js'].map((f) => read(join(modules, '@google/gemini-cli/bundle', f))).join('');
  return {
    claude: claude.includes('tools/list_changed notification, refreshing tools'),
    gemini: gemini.includes("list_changed' capability. Listening anyway") || gemini.includes("listChanged' capability. Listening anyway"),
  };
}

function report(r) {
  const c = r.clients;
  const yes = (v) => (v === true ? 'yes' : v === false ? 'no' : String(v));
  const listed = (x) => (x.error ? `failed: ${x.error}` : x.connected ? 'connected' : `not connected: ${JSON.stringify(x.list)}`);
  const seen = refreshes();
  const i = c.inspector;
  const fmt = (v) => (typeof v === 'object' ? `\`${JSON.stringify(v)}\`` : String(v));
  return `# Real clients against \`mcp-live serve --stdio\`

Recorded by \`npm run clients\` (scripts/clients.mjs) on ${r.ranAt.slice(0, 10)} against commit ${r.commit}, Node ${r.node}.
Every client ran with a throw-away HOME and no API key; only what runs without a model was
driven. mcp-live ran with its own profile (\`--profile live\`, settings in \`~/.live\`), so a
client's own \`~/.qwen\` or \`~/.gemini\` never lists the gateway to itself. Backends: the demo's
clock server and \`@modelcontextprotocol/server-everything\` (stdio).

## Added with the client's own command, then \`mcp list\`

| client | version | added with | \`mcp list\` |
|---|---|---|---|
| Claude Code | ${c.claude?.version} | \`claude mcp add mcp-live -- npx mcp-live serve --stdio\` | ${listed(c.claude)} |
| Gemini CLI | ${c.gemini?.version} | \`gemini mcp add mcp-live npx mcp-live serve --stdio\` | ${listed(c.gemini)} |
| Qwen Code | ${c.qwen?.version} | \`qwen mcp add mcp-live npx mcp-live serve --stdio\` | ${listed(c.qwen)} |

Claude Code needs \`--\` before the command; Gemini CLI and Qwen Code take the rest of the line as
the command's arguments and refuse a \`--\`. Gemini CLI disables every server in a folder it does
not trust ("User-level servers are also suppressed in untrusted folders"): the check trusts its
throw-away project in \`~/.gemini/trustedFolders.json\`. Gemini CLI writes project settings by
default, Qwen Code user settings, Claude Code the project's entry in \`~/.claude.json\`.

## The MCP Inspector (CLI mode, \`@modelcontextprotocol/inspector\` ${i?.version})

| request | result |
|---|---|
| tools/list | ${fmt(i?.tools)} tools, every name within \`^[A-Za-z0-9_-]{1,64}$\`: ${yes(i?.allValid)}; first names: ${(i?.sampleNames ?? []).map((n) => `\`${n}\``).join(', ')} |
| tools/call | ${fmt(i?.call)} |
| resources/read | ${fmt(i?.read)} |
| prompts/get | ${fmt(i?.get)} |

The separate \`@modelcontextprotocol/inspector-cli\` 1.0.3 is deprecated and does not start on its
own ("Cannot find module …/@modelcontextprotocol/package.json"); its CLI mode ships with the
Inspector itself (\`npx @modelcontextprotocol/inspector --cli …\`).

## Names each client shows

The gateway names a tool \`SERVER__TOOL\` (decision 222), as the Inspector lists them above. Each
client adds its own prefix to a server's tool names: Claude Code and Qwen Code
\`mcp__mcp-live__clock__echo\`, Gemini CLI \`mcp_mcp-live_clock__echo\` (the forms recorded when
the gateway was tried inside these clients; a client shows tool names to its model only, which
this check does not run).

## A server added while a client stays attached

An SDK client attached to \`serve --stdio\` while a server was added to the settings:
${r.attached?.error ? `failed: ${r.attached.error}` : `tools ${r.attached.before} → ${r.attached.after}, ${r.attached.listChanged} \`tools/list_changed\` notification(s), the new tools listed ${r.attached.ms} ms after the save`}.
Whether a client then shows the new tools depends on the client:

| client | refreshes on \`tools/list_changed\` | read from its bundle |
|---|---|---|
| Claude Code | ${yes(seen.claude)} | "tools/list_changed notification, refreshing tools" |
| Gemini CLI | ${yes(seen.gemini)} | registers a handler even without the capability ("Listening anyway for robustness") |
| Qwen Code | no | no handler of its own; it lists a server's tools when it connects — use \`serve --stdio --restart-on-change\` |
| MCP Inspector | lists on request | — |

For Qwen Code, \`--restart-on-change\` ends the relay's session when a listed list changed (decision
226); Qwen Code then shows the server as disconnected until it reconnects (\`/mcp\` in its UI). Whether
it reconnects by itself could not be measured here: its interactive session needs a model key.
`;
}
