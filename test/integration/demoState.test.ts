import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { Writable } from 'node:stream';
import { filter, firstValueFrom, timeout } from 'rxjs';
import { afterAll, describe, expect, it } from 'vitest';
import { runApprovals } from '../../src/cli/approvalsCommand.js';
import type { CommonOptions } from '../../src/cli/args.js';
import { startDemo } from '../../src/cli/demo.js';
import { createMcpLive } from '../../src/live/createMcpLive.js';
import { type McpLiveOptions } from '../../src/live/types.js';
import type { ReconcileEvent } from '../../src/model/report/events.js';
import { planReport } from '../../src/live/planReport.js';
import { settingsPaths } from '../../src/live/settingsPaths.js';
import { formatReconcile } from '../../src/hosts/ui/text/eventLogLine.js';

/**
 * Decision 79: the demo keeps what a run writes (approvals) in a temp directory, so every
 * `npm start` asks again and nothing a run wrote lands in the package; its settings stay in
 * place, for the README's tour edits them while it runs.
 */

const ROOT = resolve(import.meta.dirname, '../..');
// Inside the package, as the CLI's smoke test does: the demo settings point at its servers.
const COPY = join(ROOT, '.tmp-test', `demo-state-${process.pid}`);
const LIVE_COPY = join(ROOT, '.tmp-test', `demo-live-${process.pid}`);

afterAll(() => {
  rmSync(COPY, { recursive: true, force: true });
  rmSync(LIVE_COPY, { recursive: true, force: true });
});

const sink = () => new Writable({ write: (_chunk, _enc, done) => done() });

/** Every file under `dir`, relative. */
function files(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => !e.isDirectory())
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1))
    .sort();
}

async function repoHelperApproval(options: McpLiveOptions): Promise<string | undefined> {
  return (await planReport(options)).servers.find((s) => s.name === 'repo-helper')?.approval;
}

describe('mcp-live --demo', () => {
  it('asks for approval again on every run and writes nothing into the demo', async () => {
    mkdirSync(dirname(COPY), { recursive: true });
    cpSync(join(ROOT, 'examples/demo'), COPY, { recursive: true });
    rmSync(join(COPY, 'home/.qwen/mcpApprovals.json'), { force: true });
    const before = files(COPY);

    const first = await startDemo(COPY);
    let state: string;
    try {
      // The settings of the tour are used in place.
      expect(first.options).toMatchObject({ cwd: join(COPY, 'workspace'), homeDir: join(COPY, 'home') });
      state = dirname(first.options.approvalsFile!);

      // Its own servers start without a question, though the clone's root has launcher files (decision 305).
      const servers = (await planReport(first.options)).servers;
      expect(servers.find((s) => s.name === 'notes')).toMatchObject({ scope: 'user', admitted: true });
      expect(servers.filter((s) => s.reason === 'untrusted_launch')).toEqual([]);
      expect(await repoHelperApproval(first.options)).toBe('pending');
      const approve = { kind: 'approvals', action: 'approve', server: 'repo-helper', json: true, options: {} as CommonOptions } as const;
      expect(await runApprovals(first.options, approve, sink())).toBe(0);
      expect(await repoHelperApproval(first.options)).toBe('approved');
    } finally {
      await first.stop();
    }
    expect(files(COPY)).toEqual(before);

    const second = await startDemo(COPY);
    try {
      expect(await repoHelperApproval(second.options)).toBe('pending');
    } finally {
      await second.stop();
    }
    // The temp directory (approvals, and the runtime records where there is no $XDG_RUNTIME_DIR) is gone.
    expect(existsSync(state)).toBe(false);
    expect(first.options.runtimeDir!.startsWith(COPY)).toBe(false);
  });

  it('a running session writes its own files to the run\'s temp directory, none under the demo (decision 328)', async () => {
    mkdirSync(dirname(LIVE_COPY), { recursive: true });
    cpSync(join(ROOT, 'examples/demo'), LIVE_COPY, { recursive: true });
    rmSync(join(LIVE_COPY, 'home/.qwen/mcpApprovals.json'), { force: true });
    const before = files(LIVE_COPY);
    const demo = await startDemo(LIVE_COPY);
    const state = dirname(demo.options.approvalsFile!);
    try {
      // Every file the session keeps for itself, by the session's own reckoning.
      const paths = settingsPaths(demo.options);
      for (const own of [paths.approvals, paths.trustedFolders, paths.oauthTokens, paths.surfaces, paths.pins]) {
        expect(dirname(own)).toBe(state);
      }
      const live = createMcpLive(demo.options);
      try {
        const connected = firstValueFrom(
          live.servers.list$.pipe(
            filter((all) => ['notes', 'clock', 'forecast'].every((name) => all.find((s) => s.name === name)?.state === 'connected')),
            timeout(30_000),
          ),
        );
        await live.start();
        await connected;
        // What the servers listed is recorded (decision 195): in the temp directory.
        for (let i = 0; i < 200 && !existsSync(join(state, 'mcp-surfaces.json')) && !existsSync(join(LIVE_COPY, 'home/.qwen/mcp-surfaces.json')); i++) {
          await new Promise((r) => setTimeout(r, 25));
        }
        expect(existsSync(join(state, 'mcp-surfaces.json'))).toBe(true);

        // The README's tour: the clock's zone edited → only clock restarts; the log counts the
        // three servers kept running (notes, forecast, the language server), not the excluded
        // `legacy` nor the pending `repo-helper`.
        const settings = join(LIVE_COPY, 'home/.qwen/settings.json');
        const original = readFileSync(settings, 'utf8');
        const pass = firstValueFrom(
          live.events$.pipe(
            filter((e): e is ReconcileEvent => e.type === 'reconcile' && e.reconnected.includes('clock')),
            timeout(30_000),
          ),
        );
        writeFileSync(settings, original.replace('Europe/Berlin', 'Asia/Tokyo'));
        const event = await pass;
        writeFileSync(settings, original);
        expect(event).toMatchObject({ reconnected: ['clock'], added: [], removed: [], blocked: [], kept: 3 });
        expect(formatReconcile(event)).toMatch(/^~clock {2}kept 3 {2}\d+ ms {2}\(watch\)$/);
      } finally {
        await live.dispose();
      }
    } finally {
      await demo.stop();
    }
    expect(files(LIVE_COPY)).toEqual(before);
    expect(existsSync(state)).toBe(false);
  });
});
