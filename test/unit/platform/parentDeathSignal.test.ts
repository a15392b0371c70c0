import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { withParentDeathSignal } from '../../../src/platform/parentDeathSignal.js';

const dir = mkdtempSync(join(tmpdir(), 'mcp-live-pdeathsig-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const nodeDir = dirname(process.execPath);

// Skipped elsewhere (decision 282): setpriv --pdeathsig, /bin/sh scripts and mode bits are Linux's.
describe.runIf(process.platform === 'linux')('withParentDeathSignal (Linux with util-linux setpriv)', () => {
  it('wraps a command found on the child PATH, keeping the command as written', () => {
    const launch = withParentDeathSignal({ command: 'node', args: ['server.mjs', '--flag'] }, { PATH: nodeDir }, undefined);
    expect(launch.command).toMatch(/\/setpriv$/);
    expect(launch.args).toEqual(['--pdeathsig', 'TERM', '--', 'node', 'server.mjs', '--flag']);
  });

  it('searches the PATH the child gets, not ours', () => {
    const launch = { command: 'node', args: [] };
    expect(withParentDeathSignal(launch, { PATH: dir }, undefined)).toBe(launch);
  });

  it('resolves a relative path from the child cwd', () => {
    const script = join(dir, 'server.sh');
    writeFileSync(script, '#!/bin/sh\n');
    chmodSync(script, 0o755);
    const launch = { command: './server.sh', args: [] };
    expect(withParentDeathSignal(launch, {}, dir).args).toEqual(['--pdeathsig', 'TERM', '--', './server.sh']);
    expect(withParentDeathSignal(launch, {}, nodeDir)).toBe(launch);
  });

  it('leaves a missing or non-executable command as it is, so spawn reports ENOENT / EACCES as ever', () => {
    const missing = { command: 'no-such-mcp-server-command', args: [] };
    expect(withParentDeathSignal(missing, { PATH: nodeDir }, undefined)).toBe(missing);
    const plain = join(dir, 'not-executable.sh');
    writeFileSync(plain, '#!/bin/sh\n');
    chmodSync(plain, 0o644);
    const notExecutable = { command: plain, args: [] };
    expect(withParentDeathSignal(notExecutable, {}, undefined)).toBe(notExecutable);
  });
});

describe('withParentDeathSignal elsewhere (decision 282)', () => {
  it('leaves the launch as it is on macOS and Windows: no parent-death signal there, the next start reaps', () => {
    for (const platform of ['darwin', 'win32', 'freebsd'] as const) {
      const launch = { command: 'node', args: ['server.mjs'] };
      expect(withParentDeathSignal(launch, { PATH: nodeDir }, undefined, platform)).toBe(launch);
    }
  });
});
