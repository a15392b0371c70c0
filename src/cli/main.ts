#!/usr/bin/env node
import type { McpLiveOptions } from '../live/types.js';
import { parseCliArgs, UsageError, USAGE, type CliCommand, type CommonOptions } from './args.js';
import { checkOptionPaths } from './checkOptionPaths.js';
import { packageVersion } from './ownPackage.js';
import { terminalSafe } from '../model/terminalText.js';

/** CLI options → library options: the same names, without the CLI's own `demo`. */
export function toLiveOptions({ demo: _demo, ...options }: CommonOptions): McpLiveOptions {
  return options;
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
  const demo = command.options.demo ? await (await import('./demo.js')).startDemo() : undefined;
  const options = { ...toLiveOptions(command.options), ...demo?.options };
  try {
    return await run(command, options);
  } finally {
    await demo?.stop();
  }
}

/**
 * Each command's modules are loaded when it runs: `serve --stdio` relaying to a running gateway
 * (what every client window launches) then starts without the session's modules.
 */
async function run(command: Exclude<CliCommand, { kind: 'help' | 'version' }>, options: McpLiveOptions): Promise<number> {
  const { stdout } = process;
  switch (command.kind) {
    case 'plan':
      return (await import('./planCommand.js')).runPlan(options, command.json, stdout);
    case 'approvals':
      return (await import('./approvalsCommand.js')).runApprovals(options, command, stdout);
    case 'mcp':
      return (await import('./mcpCommand.js')).runMcpCommand(options, command, stdout);
    case 'trust':
      return (await import('./trustCommand.js')).runTrust(options, command, stdout);
    case 'auth':
      return (await import('./authCommand.js')).runAuth(options, command, stdout);
    case 'status': {
      const [{ createMcpLive }, { runStatus }] = await Promise.all([import('../live/createMcpLive.js'), import('./statusCommand.js')]);
      return runStatus(createMcpLive(options), command.json, stdout);
    }
    case 'serve':
      return (await import('./serveCommand.js')).runServe(command, options);
    case 'session': {
      const { createMcpLive } = await import('../live/createMcpLive.js');
      // Fix hints name what works where they are read: a JSON command, or `/mcp` in the UI. Both
      // have someone who can open an `auth-required` URL: a step-up starts by itself (decision 242).
      const live = createMcpLive({ ...options, hints: command.json ? 'json' : 'ui', interactiveAuth: true });
      if (command.json) return (await import('./runJsonSession.js')).runJsonSession(live, { stdin: process.stdin, stdout });
      // Ink shows only the final frame when it believes it runs in CI (CI=true); a session the
      // user opened in a terminal is interactive whatever the environment says. Ink reads the
      // variable when it is first imported, which is the import below.
      if (process.stdin.isTTY) {
        delete process.env.CI;
        delete process.env.CONTINUOUS_INTEGRATION;
      }
      const { runInteractive } = await import('./runInteractive.js');
      const { trustSessionFolder } = await import('./trustCommand.js');
      return runInteractive(live, {}, () => trustSessionFolder(options, live.cwd));
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
    // Terminal-safe (decision 164): the message may quote a file or a server.
    const message = `mcp-live: ${terminalSafe(err instanceof Error ? err.message : String(err), { multiline: true, indent: '  ' })}\n`;
    process.stderr.write(usage ? `${message}Run "mcp-live --help" for usage.\n` : message, () => process.exit(usage ? 2 : 1));
  },
);
