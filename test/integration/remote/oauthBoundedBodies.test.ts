import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_MAX_MESSAGE_BYTES } from '../../../src/model/messageLimit.js';
import { McpOAuthProvider } from '../../../src/sinks/remote/oauthProvider.js';
import type { OAuthTokenStore } from '../../../src/sinks/stores/oauthTokenStore.js';

/**
 * The fetch OAuth uses on its own — the interactive flow and a token refresh, which are not
 * given the transport's — bounds every body too (decision 179): a metadata or token endpoint
 * answering without end fails that request, it does not grow mcp-live.
 */

const store: OAuthTokenStore = {
  file: '/nonexistent/tokens.json',
  get: () => Promise.resolve(undefined),
  update: () => Promise.resolve(),
  list: () => Promise.resolve([]),
  move: () => Promise.resolve(undefined),
  forgetServer: () => Promise.resolve(0),
};

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** A loopback server whose every answer is a JSON body without end; resolves to its URL. */
async function endlessJson(): Promise<{ url: string; sent: () => number }> {
  let sent = 0;
  const chunk = Buffer.alloc(256 * 1024, 0x20);
  server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    const pump = (): void => {
      while (!res.destroyed && res.write(chunk)) sent += chunk.length;
      if (!res.destroyed) res.once('drain', pump);
    };
    pump();
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/mcp`, sent: () => sent };
}

describe("OAuth's own fetch (decision 179)", () => {
  it('fails a body without end past the default cap instead of reading it whole', async () => {
    const target = await endlessJson();
    const provider = new McpOAuthProvider('remote', target.url, undefined, store);
    const response = await provider.observe()(`${new URL(target.url).origin}/.well-known/oauth-authorization-server`);
    await expect(response.json()).rejects.toThrow(/message too large \(more than 16 MiB/);
    // The server was stopped soon after the cap: the body was cancelled, not drained.
    expect(target.sent()).toBeLessThan(DEFAULT_MAX_MESSAGE_BYTES * 4);
  });
});
