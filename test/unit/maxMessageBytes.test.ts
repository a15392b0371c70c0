import { describe, expect, it } from 'vitest';
import { fingerprint } from '../../src/model/reconcile/fingerprint.js';
import { resolveLspConfig } from '../../src/model/lsp/lspConfig.js';
import { MAX_MESSAGE_BYTES_CAP } from '../../src/model/types.js';
import { resolveServerConfig, validateServerConfig } from '../../src/model/settings/validate.js';
import { boundedFetch } from '../../src/sinks/remote/boundedFetch.js';
import { MessageTooLarge } from '../../src/model/messageLimit.js';

/** `maxMessageBytes` (decision 182) and the counting fetch (decision 179). */

const resolved = (raw: Record<string, unknown>) => {
  const r = resolveServerConfig(raw, {});
  if (!r.ok) throw new Error(r.error);
  return r.resolved;
};

describe('maxMessageBytes in an entry', () => {
  it('must be a positive whole number', () => {
    for (const bad of [0, -1, 1.5, '16', Infinity, null]) {
      expect(validateServerConfig({ command: 'x', maxMessageBytes: bad })).toEqual({ ok: false, error: 'maxMessageBytes must be a positive whole number (bytes)' });
    }
    expect(validateServerConfig({ command: 'x', maxMessageBytes: 1024 }).ok).toBe(true);
  });

  it('is carried for every transport, capped at 256 MiB, and absent when not written', () => {
    expect(resolved({ command: 'x', maxMessageBytes: 1024 }).maxMessageBytes).toBe(1024);
    expect(resolved({ httpUrl: 'http://h/mcp', maxMessageBytes: 2048 }).maxMessageBytes).toBe(2048);
    expect(resolved({ url: 'http://h/sse', maxMessageBytes: 10 * MAX_MESSAGE_BYTES_CAP }).maxMessageBytes).toBe(MAX_MESSAGE_BYTES_CAP);
    expect('maxMessageBytes' in resolved({ command: 'x' })).toBe(false);
  });

  it('is in the fingerprint (a changed cap reconnects); an entry without it keeps its fingerprint', () => {
    const plain = resolved({ command: 'x' });
    expect(fingerprint(resolved({ command: 'x', maxMessageBytes: 1024 }))).not.toBe(fingerprint(plain));
    expect(fingerprint({ ...plain, maxMessageBytes: undefined })).toBe(fingerprint(plain));
  });
});

describe('maxMessageBytes in a language server entry (decision 186)', () => {
  const lsp = (extra: Record<string, unknown>) => resolveLspConfig({ command: 'x', extensionToLanguage: { '.x': 'x' }, ...extra }, {});

  it('is checked as in an MCP entry, carried capped at 256 MiB, absent when not written', () => {
    for (const bad of [0, -1, 1.5, '16', Infinity, null]) {
      expect(lsp({ maxMessageBytes: bad })).toEqual({ ok: false, error: 'maxMessageBytes must be a positive whole number (bytes)' });
    }
    const at = (extra: Record<string, unknown>) => {
      const r = lsp(extra);
      if (!r.ok) throw new Error(r.error);
      return r.resolved;
    };
    expect(at({ maxMessageBytes: 1024 }).maxMessageBytes).toBe(1024);
    expect(at({ maxMessageBytes: 10 * MAX_MESSAGE_BYTES_CAP }).maxMessageBytes).toBe(MAX_MESSAGE_BYTES_CAP);
    expect('maxMessageBytes' in at({})).toBe(false);
    // A changed cap restarts the server; an entry without it keeps its fingerprint.
    expect(fingerprint(at({ maxMessageBytes: 1024 }))).not.toBe(fingerprint(at({})));
    expect(fingerprint({ ...at({}), maxMessageBytes: undefined })).toBe(fingerprint(at({})));
  });
});

/** A fetch answering with `chunks` as the body, of `contentType`. */
const serving = (contentType: string, chunks: string[]) => () =>
  Promise.resolve(
    new Response(
      new ReadableStream<Uint8Array>({
        start(controller) {
          for (const chunk of chunks) controller.enqueue(new TextEncoder().encode(chunk));
          controller.close();
        },
      }),
      { headers: { 'content-type': contentType } },
    ),
  );

async function read(contentType: string, chunks: string[], maxBytes: number): Promise<{ text?: string; error?: unknown; reported: number }> {
  let reported = 0;
  const response = await boundedFetch(maxBytes, () => reported++, serving(contentType, chunks))('http://h/mcp');
  try {
    return { text: await response.text(), reported };
  } catch (error) {
    return { error, reported };
  }
}

describe('boundedFetch', () => {
  it('a JSON body is counted whole: at the cap it is read, one byte past it fails and is reported once', async () => {
    expect(await read('application/json', ['12345', '67890'], 10)).toEqual({ text: '1234567890', reported: 0 });
    const over = await read('application/json', ['12345', '678901'], 10);
    expect(over.error).toBeInstanceOf(MessageTooLarge);
    expect(over.reported).toBe(1);
    expect((over.error as Error).message).toBe('message too large (more than 10 bytes; raise "maxMessageBytes" in the server\'s entry)');
  });

  it('an event stream is counted per event: blank lines (\\n, \\r\\n, \\r) end one', async () => {
    const events = ['data: 12345\n\n', 'data: 12345\r\n\r\n', 'data: 12345\r\r', 'data: 12345\n\n'];
    expect(await read('text/event-stream; charset=utf-8', events, 16)).toEqual({ text: events.join(''), reported: 0 });
    const endless = await read('text/event-stream', ['data: 1234', '5678\n', 'data: 9abcdef\n'], 16);
    expect(endless.error).toBeInstanceOf(MessageTooLarge);
  });

  it('leaves a response without a body as it is, and keeps status, headers and url', async () => {
    const empty = () => Promise.resolve(new Response(null, { status: 202 }));
    expect((await boundedFetch(1, () => undefined, empty)('http://h/')).status).toBe(202);
    const response = await boundedFetch(100, () => undefined, serving('application/json', ['{}']))('http://h/');
    expect([response.status, response.headers.get('content-type'), await response.json()]).toEqual([200, 'application/json', {}]);
  });
});
