import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { waitForNoLeftovers } from '../integration/processes.js';
import type { PlanReport } from '../../src/planReport.js';
import { FIXTURES, runCli, Workspace, type CliRun } from './cliSession.js';
import { deadline } from '../deadlines.js';

/**
 * Configs written for the peers must just work (decisions 10, 80–82), against the built CLI: a
 * Gemini CLI / Qwen Code style extension (`${extensionPath}${/}dist${/}…`,
 * `cwd: ${extensionPath}`, `${workspacePath}`), Claude Code's `${VAR:-default}`, an unset
 * variable's warning, `excludeTools: ["slow()"]`, and a VS Code style `.mcp.json`
 * ({"servers": {}}). One `plan` and one `status` run, several facts each.
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
    ws.write(ws.mcpJson, { servers: { github: { type: 'http', url: 'https://api.githubcopilot.com/mcp/' } } });

    // plan: what would run, spawning nothing.
    const plan = await run(ws, ['plan', '--json', '--cwd', ws.cwd]);
    expect(plan.code).toBe(0);
    const report = JSON.parse(plan.stdout) as PlanReport;
    const example = report.servers.find((s) => s.name === 'example');
    expect(example).toMatchObject({ scope: 'extension', source: manifest, admitted: true, transport: 'stdio', warnings: ['EXAMPLE_TOKEN is not set'] });
    expect(example?.target).toContain('${extensionPath}${/}dist${/}example.mjs');
    expect(report.notices).toContainEqual(
      expect.objectContaining({ type: 'settings-error', file: ws.mcpJson, error: expect.stringContaining('no "mcpServers" object; found "servers"') as string }),
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
      `${ws.mcpJson}: no "mcpServers" object; found "servers" — VS Code's format (.vscode/mcp.json)? mcp-live reads {"mcpServers": {…}}`,
    ]);
    // The .mcp.json server is not loaded from the foreign key.
    expect(result.servers.map((s) => s.name)).toEqual(['example']);
  }, deadline(90_000));
});
