import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { waitForNoLeftovers } from '../integration/processes.js';
import type { PlanReport } from '../../src/live/planReport.js';
import { FIXTURES, runCli, Workspace, type CliRun } from './cliSession.js';
import { deadline } from '../deadlines.js';

/**
 * Configs written for the peers must just work (decisions 10, 80–82), against the built CLI: a
 * Gemini CLI / Qwen Code style extension (`${extensionPath}${/}dist${/}…`,
 * `cwd: ${extensionPath}`, `${workspacePath}`), Claude Code's `${VAR:-default}`, an unset
 * variable's warning, `excludeTools: ["slow()"]`, and a `.mcp.json` in VS Code's shape
 * ({"servers": …, "inputs": …}, decision 327). One `plan` and two `status` runs, several facts each.
 */

afterAll(async () => {
  expect(await waitForNoLeftovers()).toEqual([]);
});

function run(ws: Workspace, args: string[]): Promise<CliRun> {
  // The variables the entries read are unset here, whatever the shell running the tests has.
  return runCli(ws, args, { env: { EXAMPLE_NAME: undefined, EXAMPLE_TOKEN: undefined }, timeoutMs: 60_000 });
}

/** An installed extension whose server lives in its own dist/ directory, as the peers' docs show it. */
function installExampleExtension(ws: Workspace): { dir: string; manifest: string } {
  const dir = join(ws.home, '.qwen', 'extensions', 'example');
  const manifest = join(dir, 'qwen-extension.json');
  mkdirSync(join(dir, 'dist'), { recursive: true });
  // The extension's server: the echo fixture, imported by absolute path (so it finds the SDK).
  writeFileSync(join(dir, 'dist', 'example.mjs'), `import ${JSON.stringify(join(FIXTURES, 'echo-server.mjs'))};\n`);
  ws.write(manifest, {
    name: 'example',
    version: '1.0.0',
    mcpServers: {
      example: {
        command: process.execPath,
        args: [
          '${extensionPath}${/}dist${/}example.mjs',
          '--start-log',
          ws.startLog,
          '--log-name',
          '${EXAMPLE_NAME:-example}@${workspacePath}',
        ],
        cwd: '${extensionPath}',
        env: { EXAMPLE_TOKEN: '${EXAMPLE_TOKEN}' },
        excludeTools: ['slow()'],
      },
    },
  });
  return { dir, manifest };
}

describe('configs written for the peers (the built CLI)', () => {
  it('Gemini CLI / Qwen Code extension variables, Claude Code ${VAR:-default}, excludeTools "slow()" and a VS Code .mcp.json', async ({ onTestFinished }) => {
    const ws = new Workspace(onTestFinished);
    const { manifest } = installExampleExtension(ws);
    // VS Code's shape (decision 327): its servers are read, gated as any .mcp.json entry; never approved here.
    ws.write(ws.mcpJson, {
      inputs: [{ type: 'promptString', id: 'token', password: true }],
      servers: {
        github: { type: 'http', url: 'https://api.githubcopilot.com/mcp/' },
        asks: { type: 'stdio', command: process.execPath, args: [join(FIXTURES, 'echo-server.mjs')], env: { TOKEN: '${input:token}' } },
      },
    });

    // plan: what would run, spawning nothing.
    const plan = await run(ws, ['plan', '--json', '--cwd', ws.cwd]);
    expect(plan.code).toBe(0);
    const report = JSON.parse(plan.stdout) as PlanReport;
    const example = report.servers.find((s) => s.name === 'example');
    expect(example).toMatchObject({ scope: 'extension', source: manifest, admitted: true, transport: 'stdio', warnings: ['EXAMPLE_TOKEN is not set'] });
    expect(example?.target).toContain('${extensionPath}${/}dist${/}example.mjs');
    expect(report.servers.find((s) => s.name === 'github')).toMatchObject({ scope: 'project', source: ws.mcpJson, admitted: false, reason: 'pending_approval' });
    expect(report.servers.find((s) => s.name === 'asks')).toMatchObject({ scope: 'project', admitted: false, reason: 'pending_approval' });
    expect(report.notices).toContainEqual(
      expect.objectContaining({ type: 'settings-error', file: ws.mcpJson, error: expect.stringContaining('"inputs" (VS Code\'s prompted values) are not supported') as string }),
    );
    expect(ws.starts()).toEqual([]);

    // status: it really runs — from the extension's directory, with the workspace and the default in its args.
    const status = await run(ws, ['status', '--json', '--cwd', ws.cwd]);
    const result = JSON.parse(status.stdout) as {
      settingsErrors: string[];
      servers: { name: string; state: string; error?: string; tools: string[]; warnings?: string[] }[];
    };
    const running = result.servers.find((s) => s.name === 'example');
    expect(running, status.stdout).toMatchObject({ state: 'connected', warnings: ['EXAMPLE_TOKEN is not set'] });
    expect(running?.tools).toContain('mcp__example__echo');
    expect(running?.tools).not.toContain('mcp__example__slow');
    expect(ws.starts()).toEqual([`example@${ws.cwd}`]);
    expect(result.settingsErrors).toEqual([
      `${ws.mcpJson}: "inputs" (VS Code's prompted values) are not supported; a server that uses one (\${input:…}) is invalid — read the value from the environment instead, \${env:NAME} or \${NAME}`,
    ]);
    // The VS Code servers are listed, waiting for approval — not silently nothing.
    expect(result.servers.map((s) => [s.name, s.state])).toEqual([
      ['asks', 'blocked'],
      ['example', 'connected'],
      ['github', 'blocked'],
    ]);

    // Approved, the server that reads a prompted input is refused in words, and never started.
    expect((await run(ws, ['approvals', 'approve', 'asks', '--cwd', ws.cwd])).code).toBe(0);
    const after = await run(ws, ['status', '--json', '--cwd', ws.cwd]);
    expect(after.code).toBe(1);
    const asks = (JSON.parse(after.stdout) as typeof result).servers.find((s) => s.name === 'asks');
    expect(asks).toMatchObject({
      state: 'error',
      error: 'invalid_config: env uses ${input:token}, a value VS Code prompts for, which is not supported: read it from the environment instead, ${NAME} (in VS Code\'s "servers" also ${env:NAME})',
    });
    expect(ws.starts()).toEqual([`example@${ws.cwd}`, `example@${ws.cwd}`]);
  }, deadline(90_000));
});
