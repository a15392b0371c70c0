#!/usr/bin/env node
/**
 * `npm run conformance [-- --no-build] [-- --suite client|server|all] [-- --scenario NAME …] [-- --jobs N]`:
 * runs the official MCP conformance suite against mcp-live and writes docs/conformance.md and
 * conformance/results/latest.json.
 *   client  its client scenarios against mcp-live's CLI, through conformance/adapter.mjs;
 *   server  its server scenarios against `mcp-live serve` fronting the conformance fixture and
 *           server-everything (conformance/serveGateway.mjs), through conformance/tokenProxy.mjs,
 *           which adds the bearer token the suite's client cannot send.
 * Exits 0 only if every scenario run passes, except server scenarios that a proxying server
 * cannot pass: conformance/serverExpectations.mjs says which and why, and docs/conformance.md
 * shows it.
 *
 * The suite's CLI needs Node ≥ 22 while mcp-live runs on the machine's Node (20): a Node 22
 * runtime from the npm registry (`node-<platform>-<arch>`) and the suite are installed into a
 * cache outside the repo, so nothing is added to package.json or the lock, and that Node runs
 * the suite's runner only — the adapter and mcp-live run on this script's Node.
 *
 * Not part of `npm test`: it installs from the registry and takes minutes. A run of chosen
 * scenarios (`--scenario`) writes latest.json but leaves docs/conformance.md, the record of full
 * runs, as it is; a full run of one suite rewrites that suite's section of it.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { BACKENDS, FIXTURE, startGateway } from '../conformance/serveGateway.mjs';
import { SERVER_EXPECTATIONS } from '../conformance/serverExpectations.mjs';
import { startTokenProxy } from '../conformance/tokenProxy.mjs';

const SUITE = '@modelcontextprotocol/conformance';
const SUITE_VERSION = '0.1.16';
const RUNNER_NODE_MAJOR = 22;
/** Above the runner's own 30 s client timeout: only a hung runner is stopped by this. */
const SCENARIO_KILL_MS = 90_000;

const repo = join(dirname(fileURLToPath(import.meta.url)), '..');
const adapter = join(repo, 'conformance', 'adapter.mjs');
const resultsDir = join(repo, 'conformance', 'results');
const docFile = join(repo, 'docs', 'conformance.md');

const { values: options } = parseArgs({
  options: {
    'no-build': { type: 'boolean', default: false },
    suite: { type: 'string', default: 'all' },
    scenario: { type: 'string', multiple: true },
    jobs: { type: 'string', default: '4' },
  },
});
const jobs = Number(options.jobs);
if (!Number.isInteger(jobs) || jobs < 1) fail(`--jobs expects a positive integer, got "${options.jobs}"`);
if (!['client', 'server', 'all'].includes(options.suite)) fail(`--suite expects client, server or all, got "${options.suite}"`);

function fail(message) {
  console.error(`conformance: ${message}`);
  process.exit(1);
}

function cacheDir() {
  const base = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(base, 'mcp-live', `conformance-${SUITE_VERSION}`);
}

/** The Node 22 binary and the suite's CLI in the cache, installed there when missing or stale. */
function ensureSuite(cache) {
  const nodePackage = `node-${process.platform}-${process.arch}`;
  const runnerNode = join(cache, 'node_modules', nodePackage, 'bin', 'node');
  const suiteDir = join(cache, 'node_modules', ...SUITE.split('/'));
  const installed = () =>
    existsSync(join(suiteDir, 'dist', 'index.js')) &&
    readJson(join(suiteDir, 'package.json'))?.version === SUITE_VERSION &&
    nodeVersion(runnerNode)?.startsWith(`v${RUNNER_NODE_MAJOR}.`);
  if (!installed()) {
    console.error(`conformance: installing ${nodePackage}@${RUNNER_NODE_MAJOR} and ${SUITE}@${SUITE_VERSION} into ${cache}`);
    mkdirSync(cache, { recursive: true });
    const npm = spawnSync(
      'npm',
      ['install', '--prefix', cache, '--no-audit', '--no-fund', '--no-save', `${nodePackage}@${RUNNER_NODE_MAJOR}`, `${SUITE}@${SUITE_VERSION}`],
      { cwd: cache, stdio: 'inherit' },
    );
    if (npm.status !== 0 || !installed()) fail(`npm install into ${cache} failed`);
  }
  return { runnerNode, suiteCli: join(suiteDir, 'dist', 'index.js') };
}

function readJson(file) {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

function nodeVersion(binary) {
  if (!existsSync(binary)) return undefined;
  const run = spawnSync(binary, ['--version'], { encoding: 'utf8' });
  return run.status === 0 ? run.stdout.trim() : undefined;
}

/** `list --client` or `list --server`: `  - NAME [versions]` a scenario. */
function listScenarios({ runnerNode, suiteCli }, kind) {
  const run = spawnSync(runnerNode, [suiteCli, 'list', `--${kind}`], { encoding: 'utf8' });
  if (run.status !== 0) fail(`list --${kind} failed: ${run.stderr}`);
  return [...run.stdout.matchAll(/^\s+-\s+(\S+)\s+\[([^\]]*)\]/gm)].map(([, name, versions]) => ({
    name,
    specVersions: versions.split(',').filter(Boolean),
  }));
}

/** A path as one word of a POSIX shell command line (the runner starts the command through one). */
function shellWord(path) {
  return `'${path.replaceAll("'", `'\\''`)}'`;
}

/** Runs one scenario with the suite's runner; resolves with what it recorded and said. */
async function runScenario(suite, scenario, workDir) {
  const outDir = mkdtempSync(join(workDir, 'scenario-'));
  const command = `${shellWord(process.execPath)} ${shellWord(adapter)}`;
  const { exitCode, output } = await runRunner(suite, ['client', '--command', command, '--scenario', scenario.name], outDir);
  return outcome(scenario, exitCode, output, outDir);
}

/** The suite's runner with `args`, its records into `outDir`; resolves with its exit code and all it said. */
function runRunner({ runnerNode, suiteCli }, args, outDir) {
  return new Promise((resolve) => {
    const runner = spawn(runnerNode, [suiteCli, ...args, '-o', outDir], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    runner.stdout.on('data', (chunk) => (output += chunk));
    runner.stderr.on('data', (chunk) => (output += chunk));
    const kill = setTimeout(() => runner.kill('SIGTERM'), SCENARIO_KILL_MS);
    runner.on('close', (code, signal) => {
      clearTimeout(kill);
      resolve({ exitCode: code ?? (signal ? 1 : 0), output });
    });
  });
}

/**
 * A scenario's outcome from its checks.json: SUCCESS counts as passed, FAILURE and WARNING as
 * failed (the runner fails a scenario on either), INFO in neither. It passes when the runner
 * said so and no check failed.
 */
function outcome(scenario, runnerExitCode, runnerOutput, outDir) {
  const { files, checksFile, checks, failed, passed } = recordedChecks(outDir);
  const stderrFile = files.find((f) => f.endsWith('stderr.txt'));
  const adapterLog = stderrFile ? readFileSync(join(outDir, stderrFile), 'utf8') : '';
  const clientExit = /Client exited with code (-?\d+)/.exec(runnerOutput);
  const timedOut = /Client timed out after/.test(runnerOutput);
  const adapterFailure = /^\[adapter\] FAILED: (.*)$/m.exec(adapterLog)?.[1];
  return {
    name: scenario.name,
    specVersions: scenario.specVersions,
    result: runnerExitCode === 0 && checksFile !== undefined && failed.length === 0 ? 'pass' : 'fail',
    passed,
    total: passed + failed.length,
    runnerExitCode,
    client: { exitCode: clientExit ? Number(clientExit[1]) : 0, timedOut },
    ...(adapterFailure ? { adapterFailure } : {}),
    ...(checksFile ? {} : { runnerOutput: runnerOutput.slice(-2000) }),
    checks,
    adapterLog,
  };
}

/** The checks the runner saved in `outDir` (`checksFile` undefined when it saved none), and their tally. */
function recordedChecks(outDir) {
  const files = readdirSync(outDir, { recursive: true }).map(String);
  const checksFile = files.find((f) => f.endsWith('checks.json'));
  const checks = (checksFile ? (readJson(join(outDir, checksFile)) ?? []) : []).map(
    ({ id, name, status, description, errorMessage }) => ({ id, name, status, description, ...(errorMessage ? { errorMessage } : {}) }),
  );
  const failed = checks.filter((c) => c.status === 'FAILURE' || c.status === 'WARNING');
  const passed = checks.filter((c) => c.status === 'SUCCESS').length;
  return { files, checksFile, checks, failed, passed };
}

/** Runs one server scenario against `url` with the suite's runner; resolves with what it recorded. */
async function runServerScenario(suite, scenario, url, workDir) {
  const outDir = mkdtempSync(join(workDir, 'scenario-'));
  const { exitCode, output } = await runRunner(suite, ['server', '--url', url, '--scenario', scenario.name], outDir);
  const { checksFile, checks, failed, passed } = recordedChecks(outDir);
  return {
    result: exitCode === 0 && checksFile !== undefined && failed.length === 0 ? 'pass' : 'fail',
    passed,
    total: passed + failed.length,
    runnerExitCode: exitCode,
    ...(checksFile ? {} : { runnerOutput: output.slice(-2000) }),
    checks,
  };
}

/**
 * The fixture alone over HTTP (`--http 0`): the self-check that tells a failure of the fixture
 * from one of the gateway. Resolves with its URL and `stop()`.
 */
async function startFixtureDirect() {
  const child = spawn(process.execPath, [FIXTURE, '--http', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', (line) => resolve(Number(/^listening (\d+)$/.exec(line)?.[1])));
    child.once('exit', (code) => reject(new Error(`the fixture exited (code ${code}) before it listened`)));
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/**
 * Every server scenario twice: at the fixture alone, then at `mcp-live serve` fronting it and
 * server-everything. One at a time: the scenarios share one gateway and its backends, and a
 * failure is then one exchange to read, not an interleaving of several.
 */
async function runServerSuite(suite, scenarios, workDir) {
  const fixture = await startFixtureDirect();
  const direct = [];
  try {
    for (const scenario of scenarios) direct.push(await runServerScenario(suite, scenario, fixture.url, workDir));
  } finally {
    await fixture.stop();
  }
  let gateway;
  try {
    gateway = await startGateway(join(workDir, 'gateway'));
  } catch (error) {
    console.error((error.log ?? []).join('\n'));
    throw new Error(`mcp-live serve did not start: ${error.message}`, { cause: error });
  }
  const proxy = await startTokenProxy(gateway.url, gateway.token);
  const stopAll = async () => {
    await proxy.close();
    return gateway.stop();
  };
  // Interrupted: the gateway still ends its servers (the runner's own cleanup for the suite).
  const interrupted = () => void stopAll().then(() => process.exit(130));
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  const results = [];
  let cleanup;
  try {
    for (const [i, scenario] of scenarios.entries()) {
      const viaGateway = await runServerScenario(suite, scenario, proxy.url, workDir);
      const expected = SERVER_EXPECTATIONS[scenario.name];
      const result = { name: scenario.name, specVersions: scenario.specVersions, ...viaGateway, direct: direct[i], ...(expected ? { expected } : {}) };
      console.error(`[server ${i + 1}/${scenarios.length}] ${summaryLine(result)}`);
      results.push(result);
    }
  } finally {
    cleanup = await stopAll();
    process.removeListener('SIGINT', interrupted);
    process.removeListener('SIGTERM', interrupted);
  }
  return { scenarios: results, backends: Object.keys(BACKENDS), backendPids: gateway.pids, cleanup, gatewayLog: gateway.log };
}

/** Runs `items` through `task`, at most `limit` at a time, keeping their order. */
async function pool(items, limit, task) {
  const results = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await task(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

const oneLine = (text) => String(text ?? '').replace(/\s+/g, ' ').trim();

const failingChecks = (checks) => checks.filter((c) => c.status === 'FAILURE' || c.status === 'WARNING');
const checkLine = (c) => `- ${c.status} \`${c.id}\` — ${oneLine(c.description)}${c.errorMessage ? ` — ${oneLine(c.errorMessage)}` : ''}`;
const CHECKS_COUNTED =
  'Checks passed counts SUCCESS against SUCCESS + FAILURE + WARNING (INFO checks are neither); a scenario passes when no check fails or warns';

// docs/conformance.md ships with the package, where the adapter, the token proxy and the fixture do
// not: they are named as the repository's paths, never linked (decision 320).
function clientMarkdown(report) {
  const passing = report.scenarios.filter((s) => s.result === 'pass').length;
  const lines = [
    '## Client suite: mcp-live as an MCP client',
    '',
    `It runs every client scenario of the official suite against mcp-live's CLI (\`mcp-live --json\`) through the repository's \`conformance/adapter.mjs\`, which drives only the CLI's public NDJSON interface and, for OAuth, plays the user's browser.`,
    '',
    `- Suite: \`${SUITE}\` ${report.suiteVersion}`,
    `- Date: ${report.date}`,
    `- Node: mcp-live and the adapter on ${report.node.mcpLive}; the suite's runner on ${report.node.runner}`,
    `- Result: **${passing} of ${report.scenarios.length} scenarios pass**`,
    '',
    `${CHECKS_COUNTED} and the runner reports no client timeout or unexpected client error.`,
    '',
    '| Scenario | Checks passed | Result |',
    '| --- | --- | --- |',
    ...report.scenarios.map((s) => `| \`${s.name}\` | ${s.passed}/${s.total} | ${s.result === 'pass' ? 'pass' : '**fail**'} |`),
  ];
  const failing = report.scenarios.filter((s) => s.result !== 'pass');
  if (failing.length > 0) {
    lines.push('', '### Failing client checks', '');
    for (const s of failing) {
      lines.push(`#### \`${s.name}\``, '');
      lines.push(...failingChecks(s.checks).map(checkLine));
      if (s.client.timedOut) lines.push('- the client timed out (runner timeout)');
      else if (s.client.exitCode !== 0) lines.push(`- the client exited with code ${s.client.exitCode}`);
      if (s.adapterFailure) lines.push(`- adapter: ${oneLine(s.adapterFailure)}`);
      if (s.runnerOutput) lines.push(`- no checks recorded; the runner exited with code ${s.runnerExitCode}`);
      lines.push('');
    }
  }
  return lines.join('\n').trimEnd();
}

const WHY = { proxy: 'a proxying server cannot pass this', bug: 'our bug, open' };

/** The cell of a result: pass, or fail with its tally. */
const resultCell = (r) => (r.result === 'pass' ? `pass (${r.passed}/${r.total})` : `**fail** (${r.passed}/${r.total})`);

/** Why a gateway result failed, from the expectations; `unexplained` when nobody has said. */
function whyCell(s) {
  if (s.result !== 'pass') return s.expected ? `${WHY[s.expected.kind]} (see below)` : '**unexplained**';
  if (s.expected?.intermittent) return `passed this run; ${WHY[s.expected.kind]}, intermittent (see below)`;
  return s.expected ? `passes, though listed as "${s.expected.kind}": update serverExpectations.mjs` : '';
}

function serverMarkdown(report, server) {
  const through = server.scenarios.filter((s) => s.result === 'pass').length;
  const direct = server.scenarios.filter((s) => s.direct.result === 'pass').length;
  const cannot = server.scenarios.filter((s) => s.result !== 'pass' && s.expected?.kind === 'proxy').length;
  const lines = [
    '## Server suite: `mcp-live serve` as an MCP server',
    '',
    `It runs every server scenario of the official suite against \`mcp-live serve --port 0 --names original --json\` on a fresh profile whose user settings list two stdio servers: the repository's \`test/fixtures/conformance-server.mjs\`, which implements everything the scenarios ask of a server, and \`@modelcontextprotocol/server-everything\`. The suite's client reaches the gateway's HTTP endpoint through the repository's \`conformance/tokenProxy.mjs\`, which adds the bearer token (the suite cannot send a header) and forwards everything else as it is, Host and Origin included. Each scenario is run first at the fixture alone (its \`--http\` mode: "direct"), so a failure through the gateway is known to be the gateway's and not the fixture's.`,
    '',
    `- Suite: \`${SUITE}\` ${report.suiteVersion}`,
    `- Date: ${report.date}`,
    `- Node: mcp-live and the fixture on ${report.node.mcpLive}; the suite's runner on ${report.node.runner}`,
    `- Result: **${through} of ${server.scenarios.length} scenarios pass through the gateway**; ${cannot} cannot pass through a proxying server; the fixture alone passes ${direct}`,
    `- Cleanup: ${server.cleanup.length === 0 ? `the gateway ended on SIGTERM and its backend processes (${Object.values(server.backendPids).join(', ')}) ended with it` : server.cleanup.join('; ')}`,
    '',
    `${CHECKS_COUNTED}. The suite's own exit code counts only FAILURE.`,
    '',
    '| Scenario | Direct (fixture alone) | Through `mcp-live serve` | Why it fails |',
    '| --- | --- | --- | --- |',
    ...server.scenarios.map((s) => `| \`${s.name}\` | ${resultCell(s.direct)} | ${resultCell(s)} | ${whyCell(s)} |`),
  ];
  const failing = server.scenarios.filter((s) => s.result !== 'pass' || s.direct.result !== 'pass' || s.expected?.intermittent);
  if (failing.length > 0) {
    lines.push('', '### Server scenarios that fail, and why', '');
    for (const s of failing) {
      lines.push(`#### \`${s.name}\``, '');
      if (s.expected) lines.push(`${s.expected.kind === 'proxy' ? 'A proxying server cannot pass this' : 'Our bug'}: ${s.expected.reason}`, '');
      if (s.direct.result !== 'pass') {
        lines.push(`The fixture alone: ${s.expected?.fixture ?? '**unexplained**'}`, '', ...failingChecks(s.direct.checks).map((c) => `${checkLine(c)} (direct)`));
      }
      lines.push(...failingChecks(s.checks).map(checkLine));
      if (s.runnerOutput) lines.push(`- no checks recorded; the runner exited with code ${s.runnerExitCode}`);
      lines.push('');
    }
  }
  return lines.join('\n').trimEnd();
}

const DOC_INTRO = `Generated by \`npm run conformance\` (scripts/conformance.mjs); do not edit by hand. A full run of a suite (\`-- --suite client\` or \`-- --suite server\`, both by default) rewrites its section.`;

/** A suite's section of the document as it stands (between its markers), if it has one. */
function sectionOf(doc, kind) {
  const match = new RegExp(`<!-- ${kind}-suite:begin -->\\n([\\s\\S]*?)\\n<!-- ${kind}-suite:end -->`).exec(doc);
  if (match) return match[1];
  // The document from before the server suite: the client suite's report alone, one level up.
  if (kind === 'client' && doc.startsWith('# MCP client conformance\n')) {
    return ['## Client suite: mcp-live as an MCP client', ...doc.trimEnd().split('\n').slice(3)].join('\n').replace(/^(#+) /gm, (h, hashes) => (h.startsWith('## Client') ? h : `#${hashes} `));
  }
  return undefined;
}

/** Writes docs/conformance.md with the sections given, keeping the other suite's section as it was. */
function writeDoc(sections) {
  const old = existsSync(docFile) ? readFileSync(docFile, 'utf8') : '';
  const section = (kind) =>
    sections[kind] ?? sectionOf(old, kind) ?? `## ${kind === 'client' ? 'Client' : 'Server'} suite\n\nNot run in full yet: \`npm run conformance -- --suite ${kind}\`.`;
  const wrap = (kind) => [`<!-- ${kind}-suite:begin -->`, section(kind), `<!-- ${kind}-suite:end -->`].join('\n');
  writeFileSync(docFile, `${['# MCP conformance', '', DOC_INTRO, '', wrap('client'), '', wrap('server')].join('\n')}\n`);
}

function summaryLine(s) {
  const why = s.result === 'pass' ? '' : ` ${s.adapterFailure ?? (s.client?.timedOut ? 'client timed out' : '')}`;
  const direct = s.direct ? ` (fixture alone: ${s.direct.result})` : '';
  const expected = s.result !== 'pass' && s.expected ? ` [${WHY[s.expected.kind]}]` : '';
  return `${s.result === 'pass' ? 'PASS' : 'FAIL'} ${s.name} ${s.passed}/${s.total}${why.trimEnd()}${direct}${expected}`;
}

/**
 * The scenarios of each suite this run covers: `--suite` picks the suites, `--scenario` names
 * from either (a name the chosen suites do not list is an error).
 */
function chooseScenarios(suite) {
  const kinds = options.suite === 'all' ? ['client', 'server'] : [options.suite];
  const all = Object.fromEntries(kinds.map((kind) => [kind, listScenarios(suite, kind)]));
  const chosen = options.scenario ?? [];
  const listed = Object.values(all).flat();
  const unknown = chosen.filter((name) => !listed.some((s) => s.name === name));
  if (unknown.length > 0) fail(`unknown scenario ${unknown.join(', ')}; the suite lists: ${listed.map((s) => s.name).join(', ')}`);
  const pick = (list) => (chosen.length > 0 ? list.filter((s) => chosen.includes(s.name)) : list);
  return { client: pick(all.client ?? []), server: pick(all.server ?? []), full: chosen.length === 0 };
}

async function runClientSuite(suite, scenarios, workDir) {
  let done = 0;
  return pool(scenarios, jobs, async (scenario) => {
    const result = await runScenario(suite, scenario, workDir);
    console.error(`[client ${++done}/${scenarios.length}] ${summaryLine(result)}`);
    return result;
  });
}

/** Only this run's logs, matching latest.json: the adapter's per client scenario, the gateway's NDJSON and stderr. */
function writeLogs(client, server) {
  const logs = join(resultsDir, 'logs');
  rmSync(logs, { recursive: true, force: true });
  mkdirSync(logs, { recursive: true });
  for (const r of client) writeFileSync(join(logs, `${r.name.replaceAll('/', '__')}.stderr.txt`), r.adapterLog);
  if (server) writeFileSync(join(logs, 'serve-gateway.log'), `${server.gatewayLog.join('\n')}\n`);
}

/** A server run succeeds when every failure through the gateway is one a proxy cannot avoid, the fixture alone fails only where that is explained, and cleanup was clean. */
function serverSucceeded(server) {
  return (
    server.scenarios.every((s) => s.result === 'pass' || s.expected?.kind === 'proxy') &&
    server.scenarios.every((s) => s.direct.result === 'pass' || s.expected?.fixture !== undefined) &&
    server.cleanup.length === 0
  );
}

async function main() {
  const suite = ensureSuite(cacheDir());
  if (!options['no-build']) {
    const build = spawnSync('npm', ['run', 'build'], { cwd: repo, stdio: 'inherit' });
    if (build.status !== 0) fail('npm run build failed (--no-build runs on the dist/ there is)');
  }
  if (!existsSync(join(repo, 'dist', 'src', 'cli', 'main.js'))) fail('dist/src/cli/main.js is missing: build first');

  const chosen = chooseScenarios(suite);
  const workDir = mkdtempSync(join(tmpdir(), 'mcp-live-conformance-'));
  let client;
  let server;
  try {
    client = await runClientSuite(suite, chosen.client, workDir);
    server = chosen.server.length > 0 ? await runServerSuite(suite, chosen.server, workDir) : undefined;
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }

  const report = {
    suite: SUITE,
    suiteVersion: SUITE_VERSION,
    date: new Date().toISOString(),
    node: { mcpLive: process.version, runner: nodeVersion(suite.runnerNode) },
    scenarios: client.map(({ adapterLog: _log, ...rest }) => rest),
    ...(server ? { server: { backends: server.backends, cleanup: server.cleanup, scenarios: server.scenarios } } : {}),
  };
  writeLogs(client, server);
  writeFileSync(join(resultsDir, 'latest.json'), `${JSON.stringify(report, null, 2)}\n`);
  if (chosen.full) {
    writeDoc({
      ...(client.length > 0 ? { client: clientMarkdown(report) } : {}),
      ...(server ? { server: serverMarkdown(report, server) } : {}),
    });
  }

  const passing = (results) => results.filter((r) => r.result === 'pass').length;
  if (client.length > 0) console.error(`\nconformance: client ${passing(client)}/${client.length} scenarios pass`);
  if (server) {
    const cannot = server.scenarios.filter((s) => s.result !== 'pass' && s.expected?.kind === 'proxy').length;
    console.error(`conformance: server ${passing(server.scenarios)}/${server.scenarios.length} pass through mcp-live serve (${cannot} cannot through a proxy)`);
    for (const problem of server.cleanup) console.error(`conformance: cleanup: ${problem}`);
  }
  console.error(
    `conformance: ${relative(repo, join(resultsDir, 'latest.json'))}${chosen.full ? `, ${relative(repo, docFile)}` : ''}; logs in ${relative(repo, join(resultsDir, 'logs'))}/`,
  );
  const clientOk = passing(client) === client.length;
  const ran = client.length + (server?.scenarios.length ?? 0);
  process.exitCode = clientOk && (!server || serverSucceeded(server)) && ran > 0 ? 0 : 1;
}

await main().catch((error) => fail(error instanceof Error ? error.message : String(error)));
