import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { filter, firstValueFrom } from 'rxjs';
import { describe, expect } from 'vitest';
import { createMcpLive } from '../../src/index.js';
import type { LogEvent, McpLiveEvent } from '../../src/model/report/events.js';
import { ndjsonWriter } from '../../src/sinks/ndjsonWriter.js';
import { eventLogText } from '../../src/hosts/ui/text/eventLogLine.js';
import { echoEntry } from './mcpServers.js';
import { it, noLeftoversAfterAll } from './workspace.js';

/**
 * A Gemini CLI extension copied into the qwen profile's extensions directory (decision 253):
 * the session warns once, on the channel of the other settings warnings (a `log` warn event: the
 * UI's log, the NDJSON stream), terminal-safe there, and runs nothing of it.
 */

noLeftoversAfterAll();

describe('a gemini-extension.json under the qwen profile', () => {
  it('is named in one warning, terminal-safe in the log and on the NDJSON line; its servers do not run', async ({ scope }) => {
    const { homeDir: home, cwd } = scope.workspace('mcp-live-foreign-ext-');
    // A directory name is text from outside too.
    const name = 'gem\u001b]0;pwned\u0007';
    const extension = join(home, '.qwen', 'extensions', name);
    mkdirSync(extension, { recursive: true });
    writeFileSync(join(extension, 'gemini-extension.json'), JSON.stringify({ name: 'gem', version: '1.0.0', mcpServers: { fromGemini: echoEntry() } }));
    writeFileSync(join(home, '.qwen', 'settings.json'), JSON.stringify({ mcpServers: { mine: echoEntry() } }));

    const live = scope.track(createMcpLive({ homeDir: home, cwd, debounceMs: 50 }));
    const events: McpLiveEvent[] = [];
    live.events$.subscribe((e) => events.push(e));
    await live.start();
    const warned = (): LogEvent[] => events.filter((e): e is LogEvent => e.type === 'log' && e.level === 'warn' && e.message.includes('gemini-extension.json'));
    expect(warned()).toHaveLength(1);
    const [warning] = warned();
    expect(warning!.message).toBe(
      `extension "${name}": ${extension} has gemini-extension.json but no qwen-extension.json, so its servers are not read – it is a Gemini CLI extension: ` +
        `install it with \`qwen extensions install ${extension}\` (Qwen Code converts it), or put it in ${join(home, '.gemini', 'extensions')} and run mcp-live with --profile gemini`,
    );
    expect(live.servers.status().map((s) => s.name)).toEqual(['mine']);

    // Shown once: a reload reads everything again and says nothing new.
    // The reload's pass comes after its reading: a second warning would be there by then.
    const reloaded = firstValueFrom(live.events$.pipe(filter((e) => e.type === 'reconcile' && e.trigger === 'reload')));
    live.reload();
    await reloaded;
    expect(warned()).toHaveLength(1);

    // Where it is shown: the UI's log line and the NDJSON line carry no raw escape.
    const line = eventLogText(warning!)!;
    expect(line.color).toBe('yellow');
    expect(line.text).toContain('gem\\x1b]0;pwned\\x07');
    const out = new PassThrough();
    let written = '';
    out.on('data', (chunk: Buffer) => (written += chunk.toString()));
    ndjsonWriter(out, {})(warning!);
    for (const raw of ['\u001b', '\u0007']) {
      expect(line.text).not.toContain(raw);
      expect(written).not.toContain(raw);
    }
    expect(written).toContain('gemini-extension.json but no qwen-extension.json');
  });
});
