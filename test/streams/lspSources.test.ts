import { rename, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { AssembleInput } from '../../src/model/settings/assemble.js';
import type { SourceSnapshot } from '../../src/model/types.js';
import { settingsPaths } from '../../src/live/settingsPaths.js';
import type { SourceNotice } from '../../src/streams/fromAllSources.js';
import { waitFor, tempDirEachTest } from './streamTestKit.js';
import { allSourcesIn } from './allSourcesIn.js';

/** Decision 145: every language server source in the combined input, watched live (real chokidar). */

const TS = { command: 'typescript-language-server', args: ['--stdio'], extensionToLanguage: { '.ts': 'typescript' } };
const PY = { command: 'pyright-langserver', args: ['--stdio'], extensionToLanguage: { '.py': 'python' } };

describe('fromAllSources: language server sources (real chokidar)', () => {
  const tmp = tempDirEachTest();
  let inputs: AssembleInput[];
  let notices: SourceNotice[];
  beforeEach(() => {
    inputs = [];
    notices = [];
  });

  const user = () => tmp.path('settings.json');
  const project = () => tmp.path('.lsp.json');
  const cli = () => tmp.path('team-lsp.json');

  function start(): void {
    tmp.ends(allSourcesIn(tmp.dir, { lspCli: [cli()] }, { onNotice: (n) => notices.push(n) }).subscribe((input) => inputs.push(input)));
  }

  /** Saved whole (renamed into place), as editors do: no read sees it half written. */
  async function save(path: string, content: unknown): Promise<void> {
    await writeFile(`${path}.tmp`, typeof content === 'string' ? content : JSON.stringify(content));
    await rename(`${path}.tmp`, path);
  }
  const sourceOf = (file: string): SourceSnapshot | undefined => inputs.at(-1)?.sources.find((s) => s.file === file);
  const lspOf = (file: string): string => JSON.stringify(sourceOf(file)?.lspServers ?? '<no source>');
  async function expectLsp(file: string, servers: Record<string, unknown>): Promise<void> {
    await waitFor(`${file}: ${JSON.stringify(servers)}`, () => lspOf(file) === JSON.stringify(servers));
  }

  it('<cwd>/.lsp.json (scope project) and --lsp-config (scope cli): read, edited, broken (kept), deleted', async () => {
    await save(project(), { ts: TS });
    await save(cli(), { lspServers: { py: PY } });
    start();
    await expectLsp(project(), { ts: TS });
    await expectLsp(cli(), { py: PY });
    expect(sourceOf(project())).toEqual({ scope: 'project', file: project(), servers: {}, lspServers: { ts: TS } });
    expect(sourceOf(cli())).toEqual({ scope: 'cli', file: cli(), servers: {}, lspServers: { py: PY } });
    // Beside the project's .mcp.json, a source of its own.
    expect(inputs.at(-1)!.sources.filter((s) => s.scope === 'project').map((s) => s.file)).toEqual([tmp.path('.mcp.json'), project()]);

    await save(project(), { ts: { ...TS, settings: { typescript: { format: { semicolons: 'remove' } } } } });
    await expectLsp(project(), { ts: { ...TS, settings: { typescript: { format: { semicolons: 'remove' } } } } });

    await save(project(), '"not an object"');
    await waitFor('the settings-error', () => notices.some((n) => n.type === 'settings-error' && n.file === project()));
    expect(lspOf(project())).toBe(JSON.stringify({ ts: { ...TS, settings: { typescript: { format: { semicolons: 'remove' } } } } }));

    await rm(project());
    await expectLsp(project(), {});
    await waitFor('the settings-ok', () => notices.some((n) => n.type === 'settings-ok' && n.file === project()));

    await save(cli(), { py: PY, ts: TS });
    await expectLsp(cli(), { py: PY, ts: TS });
    expect(notices.filter((n) => n.type === 'restart-required')).toEqual([]);
  });

  it('settings lspServers and lsp lists apply live, never as restart-required', async () => {
    await save(user(), { lspServers: { ts: TS }, lsp: { excluded: ['py'] } });
    start();
    await expectLsp(user(), { ts: TS });
    expect(sourceOf(user())!.lsp).toEqual({ excluded: ['py'] });
    await save(user(), { lspServers: { ts: TS, py: PY }, lsp: { allowed: ['ts'] } });
    await expectLsp(user(), { ts: TS, py: PY });
    expect(sourceOf(user())!.lsp).toEqual({ allowed: ['ts'] });
    expect(notices).toEqual([]);
  });
});

describe('settingsPaths: where the language server files are', () => {
  it('<cwd>/.lsp.json, and --lsp-config files resolved against the process directory (never the workspace)', () => {
    const paths = settingsPaths({ cwd: '/work/space', homeDir: '/home/me', lspConfig: ['team-lsp.json', '/abs/lsp.json'] });
    expect(paths.lspProject).toBe(join('/work/space', '.lsp.json'));
    expect(paths.lspCli).toEqual([resolve('team-lsp.json'), '/abs/lsp.json']);
    expect(settingsPaths({ cwd: '/work/space', homeDir: '/home/me' }).lspCli).toEqual([]);
  });
});
