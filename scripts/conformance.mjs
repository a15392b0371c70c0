#!/usr/bin/env node
/**
 * `npm run conformance [-- --no-build] [-- --scenario NAME …] [-- --jobs N]`: runs the client
 * scenarios of the official MCP conformance suite against mcp-live's CLI, through
 * conformance/adapter.mjs, and writes docs/conformance.md and conformance/results/latest.json.
 * Exits 0 only if every scenario run passes.
 *
 * The suite's CLI needs Node ≥ 22 while mcp-live runs on the machine's Node (20): a Node 22
 * runtime from the npm registry (`node-<platform>-<arch>`) and the suite are installed into a
 * cache outside the repo, so nothing is added to package.json or the lock, and that Node runs
 * the suite's runner only — the adapter and mcp-live run on this script's Node.
 *
 * Not part of `npm test`: it installs from the registry and takes minutes. A run of chosen
 * scenarios (`--scenario`) writes latest.json but leaves docs/conformance.md, the record of a
 * full run, as it is.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

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
    scenario: { type: 'string', multiple: true },
    jobs: { type: 'string', default: '4' },
  },
});
const jobs = Number(options.jobs);
if (!Number.isInteger(jobs) || jobs < 1) fail(`--jobs expects a positive integer, got "${options.jobs}"`);

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

/** `list --client`: `  - NAME [versions]` a scenario. */
function listScenarios({ runnerNode, suiteCli }) {
  const run = spawnSync(runnerNode, [suiteCli, 'list', '--client'], { encoding: 'utf8' });
  if (run.status !== 0) fail(`list --client failed: ${run.stderr}`);
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
function runScenario({ runnerNode, suiteCli }, scenario, workDir) {
  const outDir = mkdtempSync(join(workDir, 'scenario-'));
  const command = `${shellWord(process.execPath)} ${shellWord(adapter)}`;
  return new Promise((resolve) => {
    const runner = spawn(runnerNode, [suiteCli, 'client', '--command', command, '--scenario', scenario.name, '-o', outDir], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    runner.stdout.on('data', (chunk) => (output += chunk));
    runner.stderr.on('data', (chunk) => (output += chunk));
    const kill = setTimeout(() => runner.kill('SIGTERM'), SCENARIO_KILL_MS);
    runner.on('close', (code, signal) => {
      clearTimeout(kill);
      resolve(outcome(scenario, code ?? (signal ? 1 : 0), output, outDir));
    });
  });
}

/**
 * A scenario's outcome from its checks.json: SUCCESS counts as passed, FAILURE and WARNING as
 * failed (the runner fails a scenario on either), INFO in neither. It passes when the runner
 * said so and no check failed.
 */
function outcome(scenario, runnerExitCode, runnerOutput, outDir) {
  const files = readdirSync(outDir, { recursive: true }).map(String);
  const checksFile = files.find((f) => f.endsWith('checks.json'));
  const stderrFile = files.find((f) => f.endsWith('stderr.txt'));
  const checks = (checksFile ? (readJson(join(outDir, checksFile)) ?? []) : []).map(
    ({ id, name, status, description, errorMessage }) => ({ id, name, status, description, ...(errorMessage ? { errorMessage } : {}) }),
  );
  const adapterLog = stderrFile ? readFileSync(join(outDir, stderrFile), 'utf8') : '';
  const failed = checks.filter((c) => c.status === 'FAILURE' || c.status === 'WARNING');
  const passed = checks.filter((c) => c.status === 'SUCCESS').length;
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

function markdown(report) {
  const passing = report.scenarios.filter((s) => s.result === 'pass').length;
  const lines = [
    '# MCP client conformance',
    '',
    `Generated by \`npm run conformance\` (scripts/conformance.mjs); do not edit by hand. It runs every client scenario of the official suite against mcp-live's CLI (\`mcp-live --json\`) through [conformance/adapter.mjs](../conformance/adapter.mjs), which drives only the CLI's public NDJSON interface and, for OAuth, plays the user's browser.`,
    '',
    `- Suite: \`${SUITE}\` ${report.suiteVersion}`,
    `- Date: ${report.date}`,
    `- Node: mcp-live and the adapter on ${report.node.mcpLive}; the suite's runner on ${report.node.runner}`,
    `- Result: **${passing} of ${report.scenarios.length} scenarios pass**`,
    '',
    'Checks passed counts SUCCESS against SUCCESS + FAILURE + WARNING (INFO checks are neither); a scenario passes when no check fails or warns and the runner reports no client timeout or unexpected client error.',
    '',
    '| Scenario | Checks passed | Result |',
    '| --- | --- | --- |',
    ...report.scenarios.map((s) => `| \`${s.name}\` | ${s.passed}/${s.total} | ${s.result === 'pass' ? 'pass' : '**fail**'} |`),
  ];
  const failing = report.scenarios.filter((s) => s.result !== 'pass');
  if (failing.length > 0) {
    lines.push('', '## Failing checks', '');
    for (const s of failing) {
      lines.push(`### \`${s.name}\``, '');
      for (const c of s.checks.filter((check) => check.status === 'FAILURE' || check.status === 'WARNING')) {
        lines.push(`- ${c.status} \`${c.id}\` — ${oneLine(c.description)}${c.errorMessage ? ` — ${oneLine(c.errorMessage)}` : ''}`);
      }
      if (s.client.timedOut) lines.push('- the client timed out (runner timeout)');
      else if (s.client.exitCode !== 0) lines.push(`- the client exited with code ${s.client.exitCode}`);
      if (s.adapterFailure) lines.push(`- adapter: ${oneLine(s.adapterFailure)}`);
      if (s.runnerOutput) lines.push(`- no checks recorded; the runner exited with code ${s.runnerExitCode}`);
      lines.push('');
    }
  }
  return `${lines.join('\n').trimEnd()}\n`;
}

function summaryLine(s) {
  const why = s.result === 'pass' ? '' : ` ${s.adapterFailure ?? (s.client.timedOut ? 'client timed out' : '')}`;
  return `${s.result === 'pass' ? 'PASS' : 'FAIL'} ${s.name} ${s.passed}/${s.total}${why}`;
}

async function main() {
  const suite = ensureSuite(cacheDir());
  if (!options['no-build']) {
    const build = spawnSync('npm', ['run', 'build'], { cwd: repo, stdio: 'inherit' });
    if (build.status !== 0) fail('npm run build failed (--no-build runs on the dist/ there is)');
  }
  if (!existsSync(join(repo, 'dist', 'src', 'cli', 'main.js'))) fail('dist/src/cli/main.js is missing: build first');

  const all = listScenarios(suite);
  const chosen = options.scenario ?? [];
  const unknown = chosen.filter((name) => !all.some((s) => s.name === name));
  if (unknown.length > 0) fail(`unknown scenario ${unknown.join(', ')}; the suite lists: ${all.map((s) => s.name).join(', ')}`);
  const scenarios = chosen.length > 0 ? all.filter((s) => chosen.includes(s.name)) : all;

  const workDir = mkdtempSync(join(tmpdir(), 'mcp-live-conformance-'));
  let done = 0;
  const results = await pool(scenarios, jobs, async (scenario) => {
    const result = await runScenario(suite, scenario, workDir);
    console.error(`[${++done}/${scenarios.length}] ${summaryLine(result)}`);
    return result;
  });
  rmSync(workDir, { recursive: true, force: true });

  const report = {
    suite: SUITE,
    suiteVersion: SUITE_VERSION,
    date: new Date().toISOString(),
    node: { mcpLive: process.version, runner: nodeVersion(suite.runnerNode) },
    scenarios: results.map(({ adapterLog: _log, ...rest }) => rest),
  };
  // Only this run's logs, matching latest.json.
  rmSync(join(resultsDir, 'logs'), { recursive: true, force: true });
  mkdirSync(join(resultsDir, 'logs'), { recursive: true });
  for (const r of results) writeFileSync(join(resultsDir, 'logs', `${r.name.replaceAll('/', '__')}.stderr.txt`), r.adapterLog);
  writeFileSync(join(resultsDir, 'latest.json'), `${JSON.stringify(report, null, 2)}\n`);
  if (chosen.length === 0) writeFileSync(docFile, markdown(report));

  const passing = results.filter((r) => r.result === 'pass').length;
  console.error(
    `\nconformance: ${passing}/${results.length} scenarios pass; ${relative(repo, join(resultsDir, 'latest.json'))}` +
      `${chosen.length === 0 ? `, ${relative(repo, docFile)}` : ''}; adapter logs in ${relative(repo, join(resultsDir, 'logs'))}/`,
  );
  process.exitCode = passing === results.length && results.length > 0 ? 0 : 1;
}

await main();
