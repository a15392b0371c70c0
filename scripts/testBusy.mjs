#!/usr/bin/env node
/**
 * `npm run test:busy`: the whole suite (`npm test`) on a machine kept busy — two CPU-bound
 * processes (busy loops) run beside it from start to end (decision 316). Prints the wall time and
 * the load average (at the start, the mean and the peak of a sample every 5 s, at the end) and
 * exits with the suite's code. The busy loops end with the suite, on Ctrl-C or a kill of this
 * script, and by themselves should this script die without a word (each checks its parent).
 *
 * `BUSY=N` runs N loops instead of 2. `--no-check` runs `vitest run` instead of `npm test`, for
 * repeated runs after one with the check (typecheck and lint). npm is run as scripts/check.mjs
 * runs it (decision 274).
 */
import { spawn } from 'node:child_process';
import { availableParallelism, loadavg } from 'node:os';
import { clearInterval, setInterval } from 'node:timers';

const busyCount = Number(process.env.BUSY ?? 2);
// A busy loop that looks at its parent every few million turns: orphaned, it exits.
const BUSY_LOOP = 'const parent = process.ppid; for (let i = 1; ; i++) if (i % 5e6 === 0 && process.ppid !== parent) process.exit(0);';

const busy = Array.from({ length: busyCount }, () => spawn(process.execPath, ['-e', BUSY_LOOP], { stdio: 'ignore' }));

const loadAtStart = loadavg()[0];
const samples = [];
const sampler = setInterval(() => samples.push(loadavg()[0]), 5_000);
const startedAt = Date.now();

const noCheck = process.argv.includes('--no-check');
const what = noCheck ? 'vitest run' : 'npm test';
const execPath = process.env.npm_execpath;
const viaNode = execPath !== undefined && /\.[cm]?js$/i.test(execPath);
const args = noCheck ? ['exec', '--', 'vitest', 'run'] : ['test'];
const suite = viaNode
  ? spawn(process.execPath, [execPath, ...args], { stdio: 'inherit' })
  : spawn('npm', args, { stdio: 'inherit', shell: process.platform === 'win32' });

function endBusy() {
  clearInterval(sampler);
  for (const child of busy) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    endBusy();
    // Ctrl-C reaches the suite through the terminal too; a kill of this script is passed on.
    if (suite.exitCode === null) suite.kill(signal);
  });
}
process.on('exit', endBusy);

suite.once('error', (error) => {
  process.stderr.write(`test:busy: could not run "${what}": ${error.message}\n`);
  endBusy();
  process.exitCode = 1;
});

suite.once('close', (code, signal) => {
  endBusy();
  const seconds = (Date.now() - startedAt) / 1000;
  const loadAtEnd = loadavg()[0];
  const all = [loadAtStart, ...samples, loadAtEnd];
  const mean = all.reduce((a, b) => a + b, 0) / all.length;
  const peak = Math.max(...all);
  const minutes = `${Math.floor(seconds / 60)} min ${Math.round(seconds % 60)} s`;
  process.stdout.write(
    `\ntest:busy: ${what} ${code === 0 ? 'passed' : `failed (${signal ?? `exit ${code}`})`} in ${minutes} (${seconds.toFixed(0)} s) ` +
      `beside ${busyCount} busy loops on ${availableParallelism()} cores; load average (1 min) at start ${loadAtStart.toFixed(2)}, ` +
      `mean ${mean.toFixed(2)}, peak ${peak.toFixed(2)}, at end ${loadAtEnd.toFixed(2)}; MCP_LIVE_TEST_SLOWDOWN ${process.env.MCP_LIVE_TEST_SLOWDOWN ?? 'unset (chosen from the load)'}\n`,
  );
  process.exitCode = code ?? 1;
});
