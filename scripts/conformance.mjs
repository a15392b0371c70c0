#!/usr/bin/env node
/**
 * `npm run conformance [-- --no-build] [-- --suite client|server|all] [-- --revision 2025-11-25|2026-07-28 …]
 *  [-- --scenario NAME …] [-- --jobs N]`:
 * runs the official MCP conformance suite against mcp-live, once per specification revision, and
 * writes docs/conformance.md and conformance/results/latest.json.
 *   client  its client scenarios against mcp-live's CLI, through conformance/adapter.mjs;
 *   server  its server scenarios against `mcp-live serve` fronting the conformance fixture and
 *           server-everything (conformance/serveGateway.mjs), through conformance/tokenProxy.mjs,
 *           which adds the bearer token the suite's client cannot send.
 *
 * What runs is the suite's requirement set of each revision (`list --requirements REV`): the
 * scenarios the revision requires, and the ones it runs without scoring (extensions, scenarios
 * added after its release, scenarios the suite's own fixture cannot pass yet), plus the suite's
 * extension scenarios no set names, at 2026-07-28. Every scenario runs at its revision's wire
 * (`--spec-version REV --force`, what `--requirements REV` does, one scenario at a time), so a
 * scenario both revisions require runs twice (decision 361).
 *
 * Exits 0 only if every required scenario of every revision run passes, except server scenarios
 * that a proxying server cannot pass: conformance/serverExpectations.mjs says which and why, and
 * docs/conformance.md shows it. A scenario that is not scored never decides the exit code.
 *
 * The suite's CLI needs Node ≥ 22 while mcp-live runs on the machine's Node (20): a Node 22
 * runtime from the npm registry (`node-<platform>-<arch>`) and the suite are installed into a
 * cache outside the repo, so nothing is added to package.json or the lock, and that Node runs
 * the suite's runner only — the adapter and mcp-live run on this script's Node.
 *
 * Not part of `npm test`: it installs from the registry and takes minutes. A run of chosen
 * scenarios (`--scenario`) writes latest.json but leaves docs/conformance.md, the record of full
 * runs, as it is; a full run rewrites the sections (revision × suite) it ran. `--rewrite-doc`
 * runs nothing: it writes docs/conformance.md again from the full run latest.json holds (after a
 * change to how the document is written).
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { BACKENDS, FIXTURE, startGateway } from '../conformance/serveGateway.mjs';
import { expectationFor } from '../conformance/serverExpectations.mjs';
import { startTokenProxy } from '../conformance/tokenProxy.mjs';

const SUITE = '@modelcontextprotocol/conformance';
const SUITE_VERSION = '0.2.0-alpha.12';
const RUNNER_NODE_MAJOR = 22;
/** The revisions whose requirement sets are run, oldest first. */
const REVISIONS = ['2025-11-25', '2026-07-28'];
/** Where the extension scenarios no requirement set names run: the suite's own wire for extensions. */
const UNLISTED_EXTENSIONS_AT = '2026-07-28';
/** Above the runner's own 30 s client timeout: only a hung runner is stopped by this. */
const SCENARIO_KILL_MS = 90_000;
/** Failing checks printed per scenario in docs/conformance.md; latest.json has them all. */
const CHECKS_SHOWN = 8;

const repo = join(dirname(fileURLToPath(import.meta.url)), '..');
const adapter = join(repo, 'conformance', 'adapter.mjs');
const resultsDir = join(repo, 'conformance', 'results');
const docFile = join(repo, 'docs', 'conformance.md');

const { values: options } = parseArgs({
  options: {
    'no-build': { type: 'boolean', default: false },
    'rewrite-doc': { type: 'boolean', default: false },
    suite: { type: 'string', default: 'all' },
    revision: { type: 'string', multiple: true },
    scenario: { type: 'string', multiple: true },
    jobs: { type: 'string', default: '4' },
  },
});
const jobs = Number(options.jobs);
if (!Number.isInteger(jobs) || jobs < 1) fail(`--jobs expects a positive integer, got "${options.jobs}"`);
if (!['client', 'server', 'all'].includes(options.suite)) fail(`--suite expects client, server or all, got "${options.suite}"`);
const revisions = options.revision ?? REVISIONS;
for (const r of revisions) if (!REVISIONS.includes(r)) fail(`--revision expects one of ${REVISIONS.join(', ')}, got "${r}"`);

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

function runList({ runnerNode, suiteCli }, args) {
  const run = spawnSync(runnerNode, [suiteCli, 'list', ...args], { encoding: 'utf8' });
  if (run.status !== 0) fail(`list ${args.join(' ')} failed: ${run.stderr}`);
  return run.stdout;
}

/**
 * A revision's requirement set from `list --requirements REV`: `Server scenarios …:` and
 * `Client scenarios …:` head the required lists (`  - NAME`), and under `Run and reported, but
 * never scored:` each reason heads its entries (`  REASON (n):`, then `    - NAME [client|server]`).
 * Each scenario as `{ name, kind, revision, scored, reason? }`.
 */
function parseRequirements(text, revision) {
  const scenarios = [];
  let section;
  let reason;
  for (const line of text.split('\n')) {
    if (/^Server scenarios/.test(line)) section = 'server';
    else if (/^Client scenarios/.test(line)) section = 'client';
    else if (/^Run and reported, but never scored/.test(line)) section = 'not-scored';
    else if (section === 'not-scored' && /^\s{2}(\S[^(]*?)\s*\(\d+\):\s*$/.test(line)) reason = /^\s{2}(\S[^(]*?)\s*\(/.exec(line)[1];
    else {
      const required = /^\s{2}-\s+(\S+)\s*$/.exec(line);
      const unscored = /^\s{4}-\s+(\S+)\s+\[(client|server)\]\s*$/.exec(line);
      if (required && (section === 'server' || section === 'client')) scenarios.push({ name: required[1], kind: section, revision, scored: true });
      else if (unscored && section === 'not-scored' && reason) scenarios.push({ name: unscored[1], kind: unscored[2], revision, scored: false, reason });
    }
  }
  return scenarios;
}

/** `list --client` or `list --server`: the names tagged `[extension]`. */
function extensionScenarios(suite, kind) {
  const text = runList(suite, [`--${kind}`]);
  return [...text.matchAll(/^\s+-\s+(\S+)\s+\[extension\]/gm)].map(([, name]) => name);
}

/**
 * Every scenario this run covers, in the order of REVISIONS: each revision's requirement set,
 * and at UNLISTED_EXTENSIONS_AT the extension scenarios no set names (not scored). `--suite` picks
 * the suites, `--revision` the revisions, `--scenario` names (a name the chosen sets do not
 * list is an error).
 */
function chooseScenarios(suite) {
  const kinds = options.suite === 'all' ? ['client', 'server'] : [options.suite];
  const sets = Object.fromEntries(REVISIONS.map((revision) => [revision, parseRequirements(runList(suite, ['--requirements', revision]), revision)]));
  const named = new Set(Object.values(sets).flat().map((s) => `${s.kind}:${s.name}`));
  for (const kind of ['client', 'server']) {
    for (const name of extensionScenarios(suite, kind)) {
      if (!named.has(`${kind}:${name}`)) sets[UNLISTED_EXTENSIONS_AT].push({ name, kind, revision: UNLISTED_EXTENSIONS_AT, scored: false, reason: 'extension', unlisted: true });
    }
  }
  const all = revisions.flatMap((revision) => sets[revision]).filter((s) => kinds.includes(s.kind));
  const chosen = options.scenario ?? [];
  const unknown = chosen.filter((name) => !all.some((s) => s.name === name));
  if (unknown.length > 0) fail(`unknown scenario ${unknown.join(', ')}; the chosen sets list: ${[...new Set(all.map((s) => s.name))].join(', ')}`);
  const picked = chosen.length > 0 ? all.filter((s) => chosen.includes(s.name)) : all;
  return { client: picked.filter((s) => s.kind === 'client'), server: picked.filter((s) => s.kind === 'server'), full: chosen.length === 0 };
}

/** A path as one word of a POSIX shell command line (the runner starts the command through one). */
function shellWord(path) {
  return `'${path.replaceAll("'", `'\\''`)}'`;
}

/** The runner's arguments that pick a scenario and run it at its revision's wire, as `--requirements` does. */
const atRevision = (scenario) => ['--scenario', scenario.name, '--spec-version', scenario.revision, '--force'];

/** Runs one client scenario with the suite's runner; resolves with what it recorded and said. */
async function runScenario(suite, scenario, workDir) {
  const outDir = mkdtempSync(join(workDir, 'scenario-'));
  const command = `${shellWord(process.execPath)} ${shellWord(adapter)}`;
  const { exitCode, output } = await runRunner(suite, ['client', '--command', command, ...atRevision(scenario)], outDir);
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
 * A run's verdict: `pass` when the runner said so and no check failed or warned, `no-verdict` when
 * that holds but no check passed either (every one skipped or informational: the scenario found
 * nothing of the client or server to judge), `fail` otherwise.
 */
function verdict(runnerExitCode, checksFile, failed, passed) {
  if (runnerExitCode !== 0 || checksFile === undefined || failed.length > 0) return 'fail';
  return passed === 0 ? 'no-verdict' : 'pass';
}

/** The runner's own error when it recorded no checks: its first line that says "error". */
const runnerError = (output) => /^.*error.*$/im.exec(output)?.[0]?.trim();

/** What a result row keeps of its scenario. */
const identity = ({ name, revision, scored, reason, unlisted }) => ({ name, revision, scored, ...(reason ? { reason } : {}), ...(unlisted ? { unlisted } : {}) });

/**
 * A scenario's outcome from its checks.json: SUCCESS counts as passed, FAILURE and WARNING as
 * failed (the runner fails a scenario on either), INFO and SKIPPED in neither. It passes when the
 * runner said so and no check failed.
 */
function outcome(scenario, runnerExitCode, runnerOutput, outDir) {
  const { files, checksFile, checks, failed, passed } = recordedChecks(outDir);
  const stderrFile = files.find((f) => f.endsWith('stderr.txt'));
  const adapterLog = stderrFile ? readFileSync(join(outDir, stderrFile), 'utf8') : '';
  const clientExit = /Client exited with code (-?\d+)/.exec(runnerOutput);
  const timedOut = /Client timed out after/.test(runnerOutput);
  const adapterFailure = /^\[adapter\] FAILED: (.*)$/m.exec(adapterLog)?.[1];
  return {
    ...identity(scenario),
    result: verdict(runnerExitCode, checksFile, failed, passed),
    passed,
    total: passed + failed.length,
    runnerExitCode,
    client: { exitCode: clientExit ? Number(clientExit[1]) : 0, timedOut },
    ...(adapterFailure ? { adapterFailure } : {}),
    ...(checksFile ? {} : { runnerOutput: runnerOutput.slice(-2000), runnerError: runnerError(runnerOutput) }),
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
  const { exitCode, output } = await runRunner(suite, ['server', '--url', url, ...atRevision(scenario)], outDir);
  const { checksFile, checks, failed, passed } = recordedChecks(outDir);
  return {
    result: verdict(exitCode, checksFile, failed, passed),
    passed,
    total: passed + failed.length,
    runnerExitCode: exitCode,
    ...(checksFile ? {} : { runnerOutput: output.slice(-2000), runnerError: runnerError(output) }),
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
 * server-everything. One at a time: the scenarios of every revision share one gateway and its
 * backends (one endpoint serves every revision), and a failure is then one exchange to read,
 * not an interleaving of several.
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
      const expected = expectationFor(scenario.name, scenario.revision);
      const result = { ...identity(scenario), ...viaGateway, direct: direct[i], ...(expected ? { expected } : {}) };
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
const checkLine = (c, suffix = '') => `- ${c.status} \`${c.id}\` — ${oneLine(c.description)}${c.errorMessage ? ` — ${oneLine(c.errorMessage)}` : ''}${suffix}`;
/**
 * The failing checks of `checks` as lines — or, when none fails, the skipped ones (what a
 * scenario with no verdict says it could not judge) — at most CHECKS_SHOWN, then how many more.
 */
function checkLines(checks, suffix = '') {
  const failing = failingChecks(checks);
  const shown = failing.length > 0 ? failing : checks.filter((c) => c.status === 'SKIPPED');
  const lines = shown.slice(0, CHECKS_SHOWN).map((c) => checkLine(c, suffix));
  const kind = failing.length > 0 ? 'failing' : 'skipped';
  if (shown.length > CHECKS_SHOWN) lines.push(`- … and ${shown.length - CHECKS_SHOWN} more ${kind} checks${suffix} (conformance/results/latest.json)`);
  return lines;
}

/** Why a run has no checks: the runner's exit code and its error. */
function noChecksLines(r, suffix = '') {
  if (!r.runnerOutput) return [];
  return [`- no checks recorded; the runner exited with code ${r.runnerExitCode}${r.runnerError ? `: ${oneLine(r.runnerError)}` : ''}${suffix}`];
}

const REASONS = {
  extension: 'not scored: extension',
  'added-after-release': 'not scored: added after release',
  pending: 'not scored: pending',
};
/** The "Counts" cell: required, or why the revision runs it without scoring it. */
const countsCell = (s) => (s.scored ? 'required' : s.unlisted ? 'not scored: extension, in no requirement set' : (REASONS[s.reason] ?? `not scored: ${s.reason}`));

/** A tally line of results: required passing, and the unscored ones apart. */
function tally(results, passes = (r) => r.result === 'pass') {
  const required = results.filter((r) => r.scored);
  const unscored = results.filter((r) => !r.scored);
  return `**${required.filter(passes).length} of ${required.length} required scenarios pass**; not scored: ${unscored.filter(passes).length} of ${unscored.length} pass`;
}

// docs/conformance.md ships with the package, where the adapter, the token proxy and the fixture do
// not: they are named as the repository's paths, never linked (decision 320).
function clientMarkdown(report, revision, scenarios) {
  const lines = [
    `### Client suite at ${revision}: mcp-live as an MCP client`,
    '',
    `- Date: ${report.date}`,
    `- Result: ${tally(scenarios)}`,
    '',
    '| Scenario | Counts | Checks passed | Result |',
    '| --- | --- | --- | --- |',
    ...scenarios.map((s) => `| \`${s.name}\` | ${countsCell(s)} | ${s.passed}/${s.total} | ${resultCell(s).replace(/ \(.*\)$/, '')} |`),
  ];
  const failing = scenarios.filter((s) => s.result !== 'pass');
  if (failing.length > 0) {
    lines.push('', `#### Client scenarios that fail or give no verdict at ${revision}`, '');
    for (const s of failing) {
      lines.push(`##### \`${s.name}\` (${countsCell(s)})`, '');
      lines.push(...checkLines(s.checks));
      if (s.client.timedOut) lines.push('- the client timed out (runner timeout)');
      else if (s.client.exitCode !== 0) lines.push(`- the client exited with code ${s.client.exitCode}`);
      if (s.adapterFailure) lines.push(`- adapter: ${oneLine(s.adapterFailure)}`);
      lines.push(...noChecksLines(s));
      lines.push('');
    }
  }
  return lines.join('\n').trimEnd();
}

const WHY = { proxy: 'a proxying server cannot pass this', bug: 'our bug, open' };

/** The cell of a result: pass, or fail with its tally. */
const resultCell = (r) => ({ pass: 'pass', 'no-verdict': 'no verdict', fail: '**fail**' })[r.result] + ` (${r.passed}/${r.total})`;

/** Why a gateway result failed, from the expectations; "not explained" when serverExpectations.mjs says nothing. */
function whyCell(s) {
  if (s.result === 'no-verdict') return 'every check skipped (see below)';
  if (s.result !== 'pass') {
    if (s.expected) return `${WHY[s.expected.kind]} (see below)`;
    return s.direct.result === 'pass' ? '**not explained** (see below)' : 'the fixture alone fails too (see below)';
  }
  if (s.expected?.intermittent) return `passed this run; ${WHY[s.expected.kind]}, intermittent (see below)`;
  return s.expected ? `passes, though listed as "${s.expected.kind}": update serverExpectations.mjs` : '';
}

function serverMarkdown(report, revision, scenarios) {
  const cannot = scenarios.filter((s) => s.scored && s.result !== 'pass' && s.expected?.kind === 'proxy').length;
  const lines = [
    `### Server suite at ${revision}: \`mcp-live serve\` as an MCP server`,
    '',
    `- Date: ${report.date}`,
    `- Through \`mcp-live serve\`: ${tally(scenarios)}; ${cannot} required ${cannot === 1 ? 'scenario' : 'scenarios'} cannot pass through a proxying server`,
    `- The fixture alone: ${tally(scenarios, (s) => s.direct.result === 'pass')}`,
    `- Cleanup: ${report.server.cleanup.length === 0 ? `the gateway ended on SIGTERM and its backend processes (${Object.values(report.server.backendPids).join(', ')}) ended with it` : report.server.cleanup.join('; ')}`,
    '',
    '| Scenario | Counts | Direct (fixture alone) | Through `mcp-live serve` | Why it fails |',
    '| --- | --- | --- | --- | --- |',
    ...scenarios.map((s) => `| \`${s.name}\` | ${countsCell(s)} | ${resultCell(s.direct)} | ${resultCell(s)} | ${whyCell(s)} |`),
  ];
  const failing = scenarios.filter((s) => s.result !== 'pass' || s.direct.result !== 'pass' || s.expected?.intermittent);
  if (failing.length > 0) {
    lines.push('', `#### Server scenarios that fail at ${revision}, and why`, '');
    for (const s of failing) {
      lines.push(`##### \`${s.name}\` (${countsCell(s)})`, '');
      if (s.expected) lines.push(`${s.expected.kind === 'proxy' ? 'A proxying server cannot pass this' : 'Our bug'}: ${s.expected.reason}`, '');
      if (s.direct.result !== 'pass') {
        lines.push(
          `The fixture alone: ${s.expected?.fixture ?? (s.direct.result === 'no-verdict' ? 'no verdict' : 'fails too (not explained in serverExpectations.mjs)')}`,
          '',
          ...checkLines(s.direct.checks, ' (direct)'),
          ...noChecksLines(s.direct, ' (direct)'),
        );
      }
      lines.push(...checkLines(s.checks));
      lines.push(...noChecksLines(s));
      lines.push('');
    }
  }
  return lines.join('\n').trimEnd();
}

const CHECKS_COUNTED =
  'Checks passed counts SUCCESS against SUCCESS + FAILURE + WARNING (INFO and SKIPPED checks are neither); a scenario passes when no check fails or warns and, for a client scenario, the runner reports no client timeout or unexpected client error.';

function docIntro(report) {
  return [
    `Generated by \`npm run conformance\` (scripts/conformance.mjs); do not edit by hand. A full run rewrites the sections (revision × suite) it ran: \`-- --revision 2025-11-25|2026-07-28\` and \`-- --suite client|server\` choose them, every one by default.`,
    '',
    `- Suite: \`${SUITE}\` ${report.suiteVersion}, its requirement set of each revision (\`list --requirements REVISION\`), every scenario run at its revision's wire. A scenario both revisions require runs twice.`,
    `- Node: mcp-live, the adapter and the fixture on ${report.node.mcpLive}; the suite's runner on ${report.node.runner}`,
    `- Counts: "required" scenarios decide the exit code of \`npm run conformance\`; "not scored" ones (extensions, scenarios added after the revision's release, scenarios the suite's own fixture cannot pass yet) run and are shown, and never decide it. The extension scenarios no requirement set names run at ${UNLISTED_EXTENSIONS_AT}, the suite's wire for extensions.`,
    `- ${CHECKS_COUNTED}`,
    '',
    `The client suite runs mcp-live's CLI (\`mcp-live --json\`) through the repository's \`conformance/adapter.mjs\`, which drives only the CLI's public NDJSON interface and, for OAuth, plays the user's browser.`,
    '',
    `The server suite runs \`mcp-live serve --port 0 --names original --json\` on a fresh profile whose user settings list two stdio servers: the repository's \`test/fixtures/conformance-server.mjs\`, which implements everything the scenarios of both revisions ask of a server (on the MCP SDK's v2 line: over stdio in whichever era the gateway opens, over HTTP both eras on one endpoint), and \`@modelcontextprotocol/server-everything\`. The suite's client reaches the gateway's HTTP endpoint through the repository's \`conformance/tokenProxy.mjs\`, which adds the bearer token (the suite cannot send a header) and forwards everything else as it is, Host and Origin included. Each scenario is run first at the fixture alone (its \`--http\` mode: "direct"), so a failure through the gateway is known to be the gateway's and not the fixture's. One gateway serves the scenarios of both revisions.`,
  ].join('\n');
}

const sectionKey = (kind, revision) => `${kind}-${revision}`;

/** A section of the document as it stands (between its markers), if it has one. */
function sectionOf(doc, key) {
  return new RegExp(`<!-- ${key}:begin -->\\n([\\s\\S]*?)\\n<!-- ${key}:end -->`).exec(doc)?.[1];
}

/** Writes docs/conformance.md with the sections given, keeping every other section as it was. */
function writeDoc(report, sections) {
  const old = existsSync(docFile) ? readFileSync(docFile, 'utf8') : '';
  const wrap = (kind, revision) => {
    const key = sectionKey(kind, revision);
    const text =
      sections[key] ??
      sectionOf(old, key) ??
      `### ${kind === 'client' ? 'Client' : 'Server'} suite at ${revision}\n\nNot run in full yet: \`npm run conformance -- --suite ${kind} --revision ${revision}\`.`;
    return [`<!-- ${key}:begin -->`, text, `<!-- ${key}:end -->`].join('\n');
  };
  const parts = ['# MCP conformance', '', docIntro(report)];
  for (const revision of REVISIONS) parts.push('', `## Revision ${revision}`, '', wrap('client', revision), '', wrap('server', revision));
  writeFileSync(docFile, `${parts.join('\n')}\n`);
}

function summaryLine(s) {
  const why = s.result === 'pass' ? '' : ` ${s.adapterFailure ?? (s.client?.timedOut ? 'client timed out' : '')}`;
  const direct = s.direct ? ` (fixture alone: ${s.direct.result})` : '';
  const expected = s.result !== 'pass' && s.expected ? ` [${WHY[s.expected.kind]}]` : '';
  const counts = s.scored ? '' : ` (${countsCell(s)})`;
  return `${{ pass: 'PASS', 'no-verdict': 'NO VERDICT', fail: 'FAIL' }[s.result]} ${s.revision} ${s.name}${counts} ${s.passed}/${s.total}${why.trimEnd()}${direct}${expected}`;
}

async function runClientSuite(suite, scenarios, workDir) {
  let done = 0;
  return pool(scenarios, jobs, async (scenario) => {
    const result = await runScenario(suite, scenario, workDir);
    console.error(`[client ${++done}/${scenarios.length}] ${summaryLine(result)}`);
    return result;
  });
}

/** Only this run's logs, matching latest.json: the adapter's per client scenario and revision, the gateway's NDJSON and stderr. */
function writeLogs(client, server) {
  const logs = join(resultsDir, 'logs');
  rmSync(logs, { recursive: true, force: true });
  mkdirSync(logs, { recursive: true });
  for (const r of client) writeFileSync(join(logs, `${r.revision}__${r.name.replaceAll('/', '__')}.stderr.txt`), r.adapterLog);
  if (server) writeFileSync(join(logs, 'serve-gateway.log'), `${server.gatewayLog.join('\n')}\n`);
}

/**
 * A server run succeeds when every required scenario passes through the gateway or is one a proxy
 * cannot pass, the fixture alone fails a required scenario only where that is explained, and
 * cleanup was clean.
 */
function serverSucceeded(server) {
  const required = server.scenarios.filter((s) => s.scored);
  return (
    required.every((s) => s.result === 'pass' || s.expected?.kind === 'proxy') &&
    required.every((s) => s.direct.result === 'pass' || s.expected?.fixture !== undefined) &&
    server.cleanup.length === 0
  );
}

/** The sections of docs/conformance.md for `report`: each revision and suite it has. */
function docSections(report) {
  const sections = {};
  for (const revision of report.revisions) {
    const ofRevision = (results) => results.filter((r) => r.revision === revision);
    if (ofRevision(report.scenarios).length > 0) sections[sectionKey('client', revision)] = clientMarkdown(report, revision, ofRevision(report.scenarios));
    if (report.server && ofRevision(report.server.scenarios).length > 0) {
      sections[sectionKey('server', revision)] = serverMarkdown(report, revision, ofRevision(report.server.scenarios));
    }
  }
  return sections;
}

async function main() {
  if (options['rewrite-doc']) {
    const report = readJson(join(resultsDir, 'latest.json'));
    if (report?.full !== true) fail('conformance/results/latest.json holds no full run to write the document from');
    writeDoc(report, docSections(report));
    console.error(`conformance: ${relative(repo, docFile)} written from the run of ${report.date}`);
    return;
  }
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
    full: chosen.full,
    revisions,
    node: { mcpLive: process.version, runner: nodeVersion(suite.runnerNode) },
    scenarios: client.map(({ adapterLog: _log, ...rest }) => rest),
    ...(server ? { server: { backends: server.backends, backendPids: server.backendPids, cleanup: server.cleanup, scenarios: server.scenarios } } : {}),
  };
  writeLogs(client, server);
  mkdirSync(resultsDir, { recursive: true });
  writeFileSync(join(resultsDir, 'latest.json'), `${JSON.stringify(report, null, 2)}\n`);
  if (chosen.full) writeDoc(report, docSections(report));

  const passing = (results) => results.filter((r) => r.result === 'pass').length;
  for (const revision of revisions) {
    const of = (results) => results.filter((r) => r.revision === revision);
    const line = (results) => `${passing(results.filter((r) => r.scored))}/${results.filter((r) => r.scored).length} required pass, not scored ${passing(results.filter((r) => !r.scored))}/${results.filter((r) => !r.scored).length}`;
    if (of(client).length > 0) console.error(`conformance: ${revision} client: ${line(of(client))}`);
    if (server && of(server.scenarios).length > 0) {
      const cannot = of(server.scenarios).filter((s) => s.scored && s.result !== 'pass' && s.expected?.kind === 'proxy').length;
      console.error(`conformance: ${revision} server through mcp-live serve: ${line(of(server.scenarios))} (${cannot} required cannot through a proxy)`);
    }
  }
  for (const problem of server?.cleanup ?? []) console.error(`conformance: cleanup: ${problem}`);
  console.error(
    `conformance: ${relative(repo, join(resultsDir, 'latest.json'))}${chosen.full ? `, ${relative(repo, docFile)}` : ''}; logs in ${relative(repo, join(resultsDir, 'logs'))}/`,
  );
  const clientOk = client.every((r) => !r.scored || r.result === 'pass');
  const ran = client.length + (server?.scenarios.length ?? 0);
  process.exitCode = clientOk && (!server || serverSucceeded(server)) && ran > 0 ? 0 : 1;
}

await main().catch((error) => fail(error instanceof Error ? error.message : String(error)));
