import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { linuxOnly } from '../platforms.js';
import { CliSession, Workspace } from './cliSession.js';

/**
 * The NDJSON command channel reads bounded lines (decision 184): a line over 1 MiB is answered
 * `line too long` and skipped without being buffered, and the session goes on. Before, readline
 * held the whole line, and one of 512 MB crashed the CLI with a RangeError.
 */

const MiB = 1024 * 1024;

/** The CLI's peak resident memory so far (Linux `VmHWM`), in bytes. */
function peakRss(pid: number): number {
  const kib = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kib) * 1024;
}

async function write(cli: CliSession, text: string): Promise<void> {
  if (!cli.proc.stdin.write(text)) await new Promise((resolve) => cli.proc.stdin.once('drain', resolve));
}

describe('mcp-live --json: bounded command lines', () => {
  it('a 2 MiB line gets "line too long" and the next command is answered; a line under the cap is read', async ({ onTestFinished }) => {
    const ws = new Workspace(onTestFinished);
    ws.write(ws.userSettings, { mcpServers: {} });
    const cli = CliSession.start(ws);
    await cli.waitFor((e) => e.type === 'ready');

    cli.send({ cmd: 'status', id: 1, pad: 'x'.repeat(2 * MiB) });
    cli.send({ cmd: 'status', id: 2 });
    const answered = await cli.waitFor((e) => e.type === 'result' && e.id === 2);
    expect(answered).toMatchObject({ ok: true });
    const tooLong = cli.events.filter((e) => e.type === 'result' && e.ok === false);
    expect(tooLong).toEqual([expect.objectContaining({ error: 'line too long (2 MiB, at most 1 MiB): skipped' })]);
    // Answered in order: the skipped line's answer comes before the next command's.
    expect(cli.events.indexOf(tooLong[0]!)).toBeLessThan(cli.events.indexOf(answered));
    expect(cli.events.some((e) => e.type === 'result' && e.id === 1)).toBe(false);

    cli.send({ cmd: 'status', id: 3, pad: 'x'.repeat(MiB - 100) });
    expect(await cli.waitFor((e) => e.type === 'result' && e.id === 3)).toMatchObject({ ok: true });
  });

  linuxOnly('/proc memory figures').it('a 128 MiB line is skipped as it arrives: the CLI`s memory does not grow with it', async ({ onTestFinished }) => {
    const ws = new Workspace(onTestFinished);
    ws.write(ws.userSettings, { mcpServers: {} });
    const cli = CliSession.start(ws);
    await cli.waitFor((e) => e.type === 'ready');
    const pid = cli.proc.pid!;
    const before = peakRss(pid);

    const block = 'x'.repeat(MiB);
    for (let i = 0; i < 128; i++) await write(cli, block);
    await write(cli, '\n');
    cli.send({ cmd: 'status', id: 'after' });
    expect(await cli.waitFor((e) => e.type === 'result' && e.id === 'after')).toMatchObject({ ok: true });
    expect(cli.events.filter((e) => e.type === 'result' && e.ok === false)).toEqual([
      expect.objectContaining({ error: 'line too long (128 MiB, at most 1 MiB): skipped' }),
    ]);
    // Loose: what the garbage collector lets pile up is allowed (~35 MiB on Node 20, ~73 MiB on
    // Node 24, whatever the line's length), the line itself is not: readline held the line as a
    // string (a 64 MiB line: +147 MB), so holding this one would be well over 128 MiB.
    expect(peakRss(pid) - before).toBeLessThan(96 * MiB);
  });
});
