#!/usr/bin/env node
/**
 * `npm run check`: `npm run typecheck` and `npm run lint` side by side, on any platform
 * (decision 274) — the shell form (`&`, `$!`, `wait`) runs under sh only, and npm runs scripts
 * with cmd.exe on Windows.
 *
 * Each run's output is passed on whole lines at a time, so the two never mix within a line.
 * The exit code is as the shell form's was: the typecheck's when it failed, else the lint's.
 *
 * npm itself is run as npm runs this script: `$npm_execpath` (npm-cli.js) with this Node, so no
 * `npm.cmd` needs a shell on Windows; started outside npm, a plain `npm` (through the shell on
 * Windows, with fixed arguments only).
 */
import { spawn } from 'node:child_process';

const execPath = process.env.npm_execpath;

/** Runs `npm run <script>`; resolves with its exit code (1 when it could not start or was killed). */
function runScript(script) {
  const viaNode = execPath !== undefined && /\.[cm]?js$/i.test(execPath);
  const child = viaNode
    ? spawn(process.execPath, [execPath, 'run', script], { stdio: ['ignore', 'pipe', 'pipe'] })
    : spawn('npm', ['run', script], { stdio: ['ignore', 'pipe', 'pipe'], shell: process.platform === 'win32' });
  passLines(child.stdout, process.stdout);
  passLines(child.stderr, process.stderr);
  return new Promise((resolve) => {
    child.once('error', (error) => {
      process.stderr.write(`check: could not run "npm run ${script}": ${error.message}\n`);
      resolve(1);
    });
    child.once('close', (code) => resolve(code ?? 1));
  });
}

/** Copies `from` to `to` in whole lines; the unfinished last line when `from` ends. */
function passLines(from, to) {
  let partial = '';
  from.setEncoding('utf8');
  from.on('data', (text) => {
    const end = text.lastIndexOf('\n');
    if (end === -1) {
      partial += text;
      return;
    }
    to.write(partial + text.slice(0, end + 1));
    partial = text.slice(end + 1);
  });
  from.on('end', () => {
    if (partial !== '') to.write(`${partial}\n`);
    partial = '';
  });
}

const [typecheck, lint] = await Promise.all([runScript('typecheck'), runScript('lint')]);
process.exitCode = typecheck !== 0 ? typecheck : lint;
