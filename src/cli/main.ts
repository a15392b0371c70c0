#!/usr/bin/env node
import { createMcpLive, type McpLiveOptions } from '../createMcpLive.js';
import { startDemo } from './demo.js';
import { parseCliArgs, UsageError, USAGE, type CliCommand, type CommonOptions } from './args.js';
import { runApprovals } from './approvalsCommand.js';
import { checkOptionPaths } from './checkOptionPaths.js';
import { packageVersion } from './ownPackage.js';
import { runMcpCommand } from './mcpCommand.js';
import { runTrust } from './trustCommand.js';
import { runAuth } from './authCommand.js';
import { runJsonSession } from './runJsonSession.js';
import { runPlan } from './planCommand.js';
import { runStatus } from './statusCommand.js';
import { runServe } from './serveCommand.js';

/** CLI options → library options. */
export function toLiveOptions(o: CommonOptions): McpLiveOptions {
  return {
    cwd: o.cwd,
    profile: o.profile,
    userSettings: o.userSettings,
    systemSettings: o.systemSettings,
    mcpConfig: o.mcpConfig,
    allowedMcpServerNames: o.allowedMcpServerNames,
    approvalsFile: o.approvalsFile,
    debounceMs: o.debounceMs,
    strategy: o.reconcile,
  };
}

async function main(argv: readonly string[]): Promise<number> {
  const command = parseCliArgs(argv, { cwd: process.cwd() });
  if (command.kind === 'help') {
    process.stdout.write(USAGE);
    return 0;
  }
  if (command.kind === 'version') {
    process.stdout.write(`${packageVersion()}\n`);
    return 0;
  }
  // `mcp add` (user scope) creates the user settings file when it is not there yet.
  const creates = command.kind === 'mcp' && command.action === 'add' && command.scope === 'user' ? ['--user-settings'] : [];
  checkOptionPaths(command.options, process.cwd(), creates);
  // The demo brings its own workspace, home and HTTP server.
  const demo = command.options.demo ? await startDemo() : undefined;
  const options = { ...toLiveOptions(command.options), ...demo?.options };
  try {
    return await run(command, options);
  } finally {
    await demo?.stop();
  }
}

async function run(command: Exclude<CliCommand, { kind: 'help' | 'version' }>, options: McpLiveOptions): Promise<number> {
  switch (command.kind) {
    case 'plan':
      return runPlan(options, command.json, process.stdout);
    case 'approvals':
      return runApprovals(options, command, process.stdout);
    case 'mcp':
      return runMcpCommand(options, command, process.stdout);
    case 'trust':
      return runTrust(options, command, process.stdout);
    case 'auth':
      return runAuth(options, command, process.stdout);
    case 'status':
      return runStatus(createMcpLive(options), command.json, process.stdout);
    case 'serve':
      return runServe(command, options);
    case 'session': {
      // Fix hints name what works where they are read: a JSON command, or `/mcp` in the UI.
      const live = createMcpLive({ ...options, hints: command.json ? 'json' : 'ui' });
      if (command.json) return runJsonSession(live, { stdin: process.stdin, stdout: process.stdout });
      // Ink shows only the final frame when it believes it runs in CI (CI=true); a session the
      // user opened in a terminal is interactive whatever the environment says. Ink reads the
      // variable when it is first imported, which is the import below.
      if (process.stdin.isTTY) {
        delete process.env.CI;
        delete process.env.CONTINUOUS_INTEGRATION;
      }
      const { runInteractive } = await import('./runInteractive.js');
      return runInteractive(live);
    }
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    // Every server is closed by now; watchers or a paused stdin must not keep us alive.
    process.stdout.write('', () => process.exit(code));
  },
  (err: unknown) => {
    // One line that names what is wrong, never a stack; the usage text (40 lines) would bury it,
    // so a usage error (exit 2) points at --help instead. Anything else is about files or
    // servers, not about how mcp-live was called (exit 1).
    const usage = err instanceof UsageError;
    const message = `mcp-live: ${err instanceof Error ? err.message : String(err)}\n`;
    process.stderr.write(usage ? `${message}Run "mcp-live --help" for usage.\n` : message, () => process.exit(usage ? 2 : 1));
  },
);
