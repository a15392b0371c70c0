import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { StreamMessageReader, type Message } from 'vscode-languageserver-protocol/node';
import { MessageTooLarge } from '../../../src/model/messageLimit.js';
import { LSP_MAX_HEADER_BYTES, lspMessageGuard } from '../../../src/sinks/lsp/lspMessageGuard.js';

/**
 * The guard in front of a language server's reader (decision 185): it reads the base protocol's
 * headers and fails a message whose `Content-Length` passes the cap — before its body arrives —
 * or a header block that runs past 8 KiB, and passes every byte through as it came otherwise.
 */

const framed = (body: string, extra = ''): string => `Content-Length: ${Buffer.byteLength(body)}\r\n${extra}\r\n${body}`;

interface Run {
  out: Buffer;
  chunks: Buffer[];
  error?: Error;
  reported: Error[];
}

/** Writes `chunks` through a guard of `maxBytes`; what came out, and the error it ended with. */
function run(chunks: (string | Buffer)[], maxBytes: number): Promise<Run> {
  const reported: Error[] = [];
  const guard = lspMessageGuard(maxBytes, (error) => reported.push(error));
  const out: Buffer[] = [];
  guard.on('data', (chunk: Buffer) => out.push(chunk));
  return new Promise((resolve) => {
    const done = (error?: Error) => resolve({ out: Buffer.concat(out), chunks: out, error, reported });
    guard.once('error', done);
    guard.once('end', () => done());
    for (const chunk of chunks) guard.write(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
    guard.end();
  });
}

describe('lspMessageGuard', () => {
  it('passes bytes through as they came, the same chunks, not copies', async () => {
    const chunk = Buffer.from(framed('{"jsonrpc":"2.0","method":"a"}') + framed('{"jsonrpc":"2.0","method":"b"}'));
    const result = await run([chunk], 1024);
    expect(result.error).toBeUndefined();
    expect(result.chunks).toHaveLength(1);
    expect(result.chunks[0]).toBe(chunk);
  });

  it('reads headers split anywhere across chunks; a body of exactly the cap passes', async () => {
    const message = framed('x'.repeat(10), 'Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n');
    // Every split point, so that each header byte (and each byte of "\r\n\r\n") starts a chunk once.
    for (let at = 1; at < message.length; at++) {
      const result = await run([message.slice(0, at), message.slice(at)], 10);
      expect(result.error, `split at ${at}`).toBeUndefined();
      expect(result.out.toString()).toBe(message);
    }
    const bytewise = await run([...framed('y'.repeat(10))], 10);
    expect(bytewise.error).toBeUndefined();
  });

  it('one byte past the cap fails at the header, before the body, reported once', async () => {
    const result = await run(['Content-Length: 11\r\n\r\n'], 10);
    expect(result.error).toBeInstanceOf(MessageTooLarge);
    expect(result.error!.message).toBe('message too large (more than 10 bytes; raise "maxMessageBytes" in the server\'s entry)');
    expect(result.reported).toEqual([result.error]);
    expect(result.out).toHaveLength(0);
  });

  it('counts each of several messages in one chunk: the ones before a large one pass, it does not', async () => {
    const ok = `${framed('a'.repeat(10))}${framed('b'.repeat(3))}`;
    expect((await run([ok + framed('c'.repeat(10))], 10)).error).toBeUndefined();
    const result = await run([`${ok}Content-Length: 100000000\r\n\r\nxxxx`], 10);
    expect(result.error).toBeInstanceOf(MessageTooLarge);
    expect(result.out.toString()).toBe(ok);
  });

  it('a body is not read as headers, whatever it holds', async () => {
    const body = '\r\n\r\nContent-Length: 999999\r\n\r\n';
    const result = await run([framed(body) + framed('{}')], 64);
    expect(result.error).toBeUndefined();
  });

  it('a Content-Length of any case, spacing, or digits past a safe integer', async () => {
    expect((await run(['content-LENGTH:    5  \r\n\r\nhello'], 5)).error).toBeUndefined();
    expect((await run(['CONTENT-LENGTH: 6\r\n\r\nhello!'], 5)).error).toBeInstanceOf(MessageTooLarge);
    expect((await run([`Content-Length: ${'9'.repeat(40)}\r\n\r\n`], 5)).error).toBeInstanceOf(MessageTooLarge);
  });

  it('a header block with no blank line fails once past 8 KiB; one of exactly 8 KiB passes', async () => {
    const endless = await run(Array.from({ length: 4 }, () => 'x'.repeat(4096)), 1024);
    expect(endless.error?.message).toBe('message header too long (more than 8 KiB before its blank line)');
    expect(endless.reported).toEqual([endless.error]);

    const padding = (bytes: number) => `X-Pad: ${'p'.repeat(bytes - 'X-Pad: \r\nContent-Length: 2\r\n\r\n'.length)}\r\nContent-Length: 2\r\n\r\n`;
    expect(padding(LSP_MAX_HEADER_BYTES)).toHaveLength(LSP_MAX_HEADER_BYTES);
    expect((await run([padding(LSP_MAX_HEADER_BYTES), '{}'], 1024)).error).toBeUndefined();
    expect((await run([padding(LSP_MAX_HEADER_BYTES + 1), '{}'], 1024)).error?.message).toMatch(/^message header too long/);
  });

  it('a header without a Content-Length is passed on (the reader reports it) and the next one is read', async () => {
    const result = await run([`X-Nothing: here\r\n\r\n${framed('{}')}Content-Length: 11\r\n\r\n`], 10);
    expect(result.error).toBeInstanceOf(MessageTooLarge);
    expect(result.out.toString()).toBe(`X-Nothing: here\r\n\r\n${framed('{}')}`);
  });

  it('in front of vscode-jsonrpc reader: the messages read are those read without it', async () => {
    const messages = [
      { jsonrpc: '2.0', id: 1, result: { text: 'Grüße 🚀 日本' } },
      { jsonrpc: '2.0', method: 'window/logMessage', params: { type: 3, message: 'x'.repeat(70_000) } },
    ];
    const bytes = Buffer.from(messages.map((m) => framed(JSON.stringify(m))).join(''));
    const input = new PassThrough();
    const reader = new StreamMessageReader(input.pipe(lspMessageGuard(1024 * 1024)));
    const read: Message[] = [];
    const all = new Promise<void>((resolve) =>
      reader.listen((message) => {
        read.push(message);
        if (read.length === messages.length) resolve();
      }),
    );
    // In 7-byte pieces, so that headers and multi-byte characters are split.
    Readable.from(Array.from({ length: Math.ceil(bytes.length / 7) }, (_, i) => bytes.subarray(i * 7, i * 7 + 7))).pipe(input);
    await all;
    reader.dispose();
    expect(read).toEqual(messages);
  });
});
