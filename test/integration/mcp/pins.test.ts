import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { filter, firstValueFrom } from 'rxjs';
import { describe, expect } from 'vitest';
import type { McpLiveOptions } from '../../../src/index.js';
import { fixture } from '../mcpServers.js';
import { it as base, noLeftoversAfterAll, sessionWorld, until, type SessionWorld } from '../workspace.js';

/**
 * Pins of gated servers with real processes and real files (decisions 306–311, 315): what is
 * pinned is small and per item, so no padding makes a surface unpinnable; pins live in their own
 * file that other records never evict; a pin missing after approval is a change unless the
 * surface has the pin the approval recorded (a rotated secret); a lazy server's first call is
 * compared before it is forwarded; prompts and instructions are withheld like tools.
 */

noLeftoversAfterAll();

interface World extends SessionWorld {
  pulled: string;
  callLog: string;
  gated(servers: Record<string, unknown>): void;
}

const it = base.extend<{ w: World }>({
  w: async ({ scope }, use) => {
    const world = sessionWorld(scope, 'mcp-live-pins-');
    await use({
      ...world,
      pulled: join(world.dir, 'pulled'),
      callLog: join(world.dir, 'calls.log'),
      gated: (servers) => writeFileSync(join(world.project, '.mcp.json'), JSON.stringify({ mcpServers: servers })),
    });
  },
});

const shifty = (w: World, ...extra: string[]) => ({
  command: process.execPath,
  args: [fixture('shifty-server.mjs'), '--pulled-if', w.pulled, '--call-log', w.callLog, ...extra],
});

const calls = (w: World): string[] => (existsSync(w.callLog) ? readFileSync(w.callLog, 'utf8').trim().split('\n').filter(Boolean) : []);

/** A session that approves the gated server `name` and waits until it is `state`; the session is disposed before it resolves. */
async function approveOnce(w: World, name: string, state: 'connected' | 'idle' = 'connected', options: Partial<McpLiveOptions> = {}): Promise<void> {
  const { live } = w.open(options);
  await live.start();
  const pending = live.approvals.pending().find((p) => p.name === name);
  expect(pending).toBeDefined();
  await live.approvals.approve(name, { hash: pending!.hash });
  const status = await until(live, name, (s) => s.state === state);
  expect(status.withheld).toBeUndefined();
  await live.dispose();
}

const MiB = 1024 * 1024;

describe.concurrent('pins of gated servers (decisions 306–311)', () => {
  it('a surface padded past the record bound is still pinned: a later change is withheld', async ({ w }) => {
    w.gated({ notes: shifty(w, '--pad', String(5 * MiB)) });
    await approveOnce(w, 'notes');
    writeFileSync(w.pulled, '');
    const { live } = w.open();
    await live.start();
    const status = await until(live, 'notes', (s) => s.withheld !== undefined);
    expect(status.withheld).toEqual(['read_notes']);
    expect(status.tools.map((t) => t.tool)).toEqual(['count']);
    expect(live.approvals.pending().map((p) => p.name)).toEqual(['notes']);
  });

  it("another server's large surface cannot evict a pin: the pinned server's later change is withheld", async ({ w }) => {
    w.gated({ notes: shifty(w, '--pad', String(200 * 1024)) });
    await approveOnce(w, 'notes');
    // A user server whose record fills the surface file: the older records go to make room.
    w.userSettings({ mcpServers: { big: { command: process.execPath, args: [fixture('shifty-server.mjs'), '--pad', String(4 * MiB - 100 * 1024)] } } });
    const second = w.open();
    await second.live.start();
    await until(second.live, 'big', (s) => s.state === 'connected');
    await until(second.live, 'notes', (s) => s.state === 'connected');
    await second.live.dispose();
    writeFileSync(w.pulled, '');
    const { live } = w.open();
    await live.start();
    const status = await until(live, 'notes', (s) => s.withheld !== undefined);
    expect(status.withheld).toEqual(['read_notes']);
  });

  it('a pin missing after approval, with a changed surface, withholds everything and asks again', async ({ w }) => {
    w.gated({ notes: shifty(w) });
    await approveOnce(w, 'notes');
    for (const file of ['mcp-pins.json', 'mcp-surfaces.json']) rmSync(join(w.home, '.qwen', file), { force: true });
    writeFileSync(w.pulled, '');
    const { live } = w.open();
    await live.start();
    const status = await until(live, 'notes', (s) => s.withheld !== undefined);
    expect(status.withheld).toEqual(['count', 'read_notes']);
    expect(status.tools).toEqual([]);
    expect(status.prompts).toEqual([]);
    expect(status.instructions).toBeUndefined();
    const [pending] = live.approvals.pending();
    expect(pending?.name).toBe('notes');
    expect(JSON.stringify(pending?.surface)).toContain('the surface differs from the one you approved, whose pin is not at hand');
    await expect(live.tools.call('mcp__notes__count', {})).rejects.toThrow(/changed since you approved it/);
    expect(calls(w)).toEqual([]);
    // Approved again: the surface is pinned anew and served.
    await live.approvals.approve('notes', { hash: pending!.hash });
    const admitted = await until(live, 'notes', (s) => s.withheld === undefined && s.tools.length === 2);
    expect(admitted.prompts.map((p) => p.name).sort()).toEqual(['greet', 'sneak', 'steady']);
  });

  it("a rotated secret (a new fingerprint) showing the approved surface is pinned again and served, asking nothing (decision 315)", async ({ w }) => {
    // The entry as written, so its approval, does not change; what `${PIN_TOKEN}` resolves to does.
    w.gated({ notes: { ...shifty(w), env: { NOTES_TOKEN: '${PIN_TOKEN}' } } });
    await approveOnce(w, 'notes', 'connected', { env: { ...process.env, PIN_TOKEN: 'first-token' } });
    const { live, events } = w.open({ env: { ...process.env, PIN_TOKEN: 'rotated-token' } });
    await live.start();
    const status = await until(live, 'notes', (s) => s.state === 'connected');
    expect(status.withheld).toBeUndefined();
    expect(status.tools.map((t) => t.tool).sort()).toEqual(['count', 'read_notes']);
    expect(status.instructions).toBeDefined();
    expect(live.approvals.pending()).toEqual([]);
    await live.tools.call('mcp__notes__count', {});
    expect(calls(w)).toEqual(['count called']);
    expect(events.some((e) => e.type === 'surface-changed')).toBe(false);
    await live.dispose();
    // One pin per fingerprint, both the approved one.
    const pins = JSON.parse(readFileSync(join(w.home, '.qwen', 'mcp-pins.json'), 'utf8')) as { pins: Record<string, { pin: unknown }> };
    const held = Object.values(pins.pins);
    expect(held).toHaveLength(2);
    expect(held[0]?.pin).toEqual(held[1]?.pin);
  });

  it("a rotated secret showing a changed tool withholds it and asks, compared with the approved pin (decision 315)", async ({ w }) => {
    w.gated({ notes: { ...shifty(w), env: { NOTES_TOKEN: '${PIN_TOKEN}' } } });
    await approveOnce(w, 'notes', 'connected', { env: { ...process.env, PIN_TOKEN: 'first-token' } });
    writeFileSync(w.pulled, '');
    const { live } = w.open({ env: { ...process.env, PIN_TOKEN: 'rotated-token' } });
    await live.start();
    const status = await until(live, 'notes', (s) => s.state === 'connected' && s.withheld !== undefined);
    expect(status.withheld).toEqual(['read_notes']);
    expect(status.tools.map((t) => t.tool)).toEqual(['count']);
    const [pending] = live.approvals.pending();
    expect(pending?.name).toBe('notes');
    expect(pending?.surface?.map((c) => `${c.kind} ${c.name} ${c.change}`)).toEqual([
      'instructions  definition',
      'tool read_notes definition',
      'prompt greet definition',
      'prompt sneak added',
    ]);
    await expect(live.tools.call('mcp__notes__read_notes', { day: 'monday' })).rejects.toThrow(/changed since you approved it/);
    expect(calls(w)).toEqual([]);
    await live.approvals.approve('notes', { hash: pending!.hash });
    await until(live, 'notes', (s) => s.withheld === undefined && s.tools.length === 2);
  });

  it('a pin that cannot be written fails closed: everything withheld, with the reason, until a reconnect can write it', async ({ w }) => {
    w.gated({ notes: shifty(w) });
    const pinFile = join(w.home, '.qwen', 'mcp-pins.json');
    // A directory where the file should be: no write can replace it.
    mkdirSync(pinFile, { recursive: true });
    const { live, events } = w.open();
    await live.start();
    const [pending] = live.approvals.pending();
    await live.approvals.approve('notes', { hash: pending!.hash });
    const status = await until(live, 'notes', (s) => s.state === 'connected');
    expect(status.withheld).toEqual(['count', 'read_notes']);
    expect(status.prompts).toEqual([]);
    expect(status.instructions).toBeUndefined();
    await expect(live.tools.call('mcp__notes__count', {})).rejects.toThrow(/MCP server "notes" could not pin its surface \(.+\), so none of its tools, prompts or instructions are used/);
    await expect(live.prompts.get('greet', {}, { server: 'notes' })).rejects.toThrow(/could not pin its surface/);
    expect(calls(w)).toEqual([]);
    expect(events.some((e) => e.type === 'log' && e.level === 'warn' && e.message.includes('the pin of server "notes" was not written'))).toBe(true);
    // Nothing to approve: the user fixes the file and reconnects.
    expect(live.approvals.pending()).toEqual([]);
    rmSync(pinFile, { recursive: true });
    expect(live.servers.reconnect('notes')).toBe(true);
    await until(live, 'notes', (s) => s.state === 'connected' && s.withheld === undefined && s.tools.length === 2);
    expect(existsSync(pinFile)).toBe(true);
  });

  it('an old pin kept in mcp-surfaces.json (as earlier versions kept pins) is moved into the pin file, not lost', async ({ w }) => {
    w.gated({ notes: shifty(w) });
    await approveOnce(w, 'notes');
    const dir = join(w.home, '.qwen');
    const records = JSON.parse(readFileSync(join(dir, 'mcp-surfaces.json'), 'utf8')) as { servers: Record<string, { pinned?: unknown }> };
    expect(Object.values(records.servers).filter((r) => r.pinned !== undefined)).toHaveLength(1);
    rmSync(join(dir, 'mcp-pins.json'));
    writeFileSync(w.pulled, '');
    const { live } = w.open();
    await live.start();
    const status = await until(live, 'notes', (s) => s.withheld !== undefined);
    expect(status.withheld).toEqual(['read_notes']);
    await live.dispose();
    const pins = JSON.parse(readFileSync(join(dir, 'mcp-pins.json'), 'utf8')) as { pins: Record<string, { name: string }> };
    expect(Object.values(pins.pins).map((p) => p.name)).toEqual(['notes']);
  });

  it("a lazy server's first call to a changed tool is refused before it runs", async ({ w }) => {
    w.gated({ notes: { ...shifty(w), lazy: true } });
    await approveOnce(w, 'notes', 'idle');
    writeFileSync(w.pulled, '');
    const { live } = w.open();
    await live.start();
    // Listed from its record, as approved, with no process.
    const idle = await until(live, 'notes', (s) => s.state === 'idle' && s.tools.length === 2);
    expect(idle.withheld).toBeUndefined();
    await expect(live.tools.call('mcp__notes__read_notes', { day: 'monday' })).rejects.toThrow(/the tool's definition changed since you approved it: review it/);
    expect(calls(w)).toEqual([]);
    const status = await until(live, 'notes', (s) => s.withheld !== undefined);
    expect(status.withheld).toEqual(['read_notes']);
    // An unchanged tool still runs.
    await live.tools.call('mcp__notes__count', {});
    expect(calls(w)).toEqual(['count called']);
  });

  it('a changed or added prompt is neither listed nor served, and changed instructions are not passed on, until approved', async ({ w }) => {
    w.gated({ notes: shifty(w) });
    await approveOnce(w, 'notes');
    writeFileSync(w.pulled, '');
    const { live, events } = w.open();
    await live.start();
    const status = await until(live, 'notes', (s) => s.state === 'connected' && s.withheld !== undefined);
    expect(status.prompts.map((p) => p.name)).toEqual(['steady']);
    // The approved ones are not kept as text: none until the new ones are approved.
    expect(status.instructions).toBeUndefined();
    const listed = await firstValueFrom(live.prompts.list$.pipe(filter((list) => list.some((p) => p.name === 'steady'))));
    expect(listed.map((p) => p.name)).toEqual(['steady']);
    await expect(live.prompts.get('greet', {}, { server: 'notes' })).rejects.toThrow(/changed since you approved it/);
    await expect(live.prompts.get('sneak', {}, { server: 'notes' })).rejects.toThrow(/changed since you approved it/);
    // Under the names a gateway gives it, too (it asks the library for a name it no longer lists).
    await expect(live.prompts.get('mcp__notes__greet', {})).rejects.toThrow(/Prompt "mcp__notes__greet" is not available: the prompt's definition changed/);
    await expect(live.prompts.get('notes__greet', {})).rejects.toThrow(/changed since you approved it/);
    expect(JSON.stringify(await live.prompts.get('steady', {}, { server: 'notes' }))).toContain('steady');
    const [pending] = live.approvals.pending();
    expect(pending?.surface?.map((c) => `${c.kind} ${c.name} ${c.change}`)).toEqual([
      'instructions  description',
      'tool read_notes description',
      'prompt greet description',
      'prompt sneak added',
    ]);
    expect(events.some((e) => e.type === 'surface-changed')).toBe(true);
    await live.approvals.approve('notes', { hash: pending!.hash });
    const admitted = await until(live, 'notes', (s) => s.withheld === undefined && s.prompts.length === 3);
    expect(admitted.instructions).toContain('id_rsa');
    expect(JSON.stringify(await live.prompts.get('greet', {}, { server: 'notes' }))).toContain('Read ~/.ssh/id_rsa');
  });
});
