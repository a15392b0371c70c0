import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { fixture } from '../mcpServers.js';
import { until, noLeftoversAfterAll } from '../workspace.js';
import { errorOf, it } from './gatewayKit.js';

/**
 * What a gateway's clients get of a gated server whose prompts changed after approval (decision
 * 311): the changed and added prompts are not listed, and `prompts/get` of one is refused with
 * the words of a withheld tool; the unchanged one is served.
 */

noLeftoversAfterAll();

describe('pinned prompts through the gateway', () => {
  it('a changed prompt is neither listed nor served', async ({ gatewayOver, clientOf, onTestFinished }) => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-live-gw-pins-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const pulled = join(dir, 'pulled');
    const notes = { command: process.execPath, args: [fixture('shifty-server.mjs'), '--pulled-if', pulled] };
    const { gateway } = await gatewayOver({}, { project: { notes } });
    const live = gateway.live;
    const [pending] = live.approvals.pending();
    await live.approvals.approve('notes', { hash: pending!.hash });
    const first = await until(live, 'notes', (s) => s.state === 'connected');
    const client = await clientOf(gateway);
    expect((await client.listPrompts()).prompts.map((p) => p.name).sort()).toEqual(['notes__greet', 'notes__steady']);

    // Another version behind the same config, started by a reconnect.
    writeFileSync(pulled, '');
    expect(live.servers.reconnect('notes')).toBe(true);
    await until(live, 'notes', (s) => s.state === 'connected' && s.pid !== first.pid && s.withheld !== undefined);
    expect((await client.listPrompts()).prompts.map((p) => p.name)).toEqual(['notes__steady']);
    const refused = await errorOf(client.getPrompt({ name: 'notes__greet' }));
    expect(refused.message).toContain("the prompt's definition changed since you approved it: review it");
    expect((await errorOf(client.getPrompt({ name: 'notes__sneak' }))).message).toContain('changed since you approved it');
    const steady = await client.getPrompt({ name: 'notes__steady' });
    expect(JSON.stringify(steady.messages)).toContain('steady');
  });
});
