import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect } from 'vitest';
import { listenHttp } from '../../../src/hosts/gateway/httpEndpoint.js';
import { it } from './gatewayKit.js';

/**
 * Decision 367: the gateway's HTTP endpoint keeps at most `maxSessions` 2025-era sessions; one
 * more ends the session idle longest, whose client is told its session is gone (404).
 */
describe('the HTTP endpoint’s 2025-era sessions are bounded', () => {
  it('a third session ends the one idle longest; the others keep working', async ({ gatewayOver }) => {
    const { gateway } = await gatewayOver({});
    const token = 'session-cap-test-token';
    const endpoint = await listenHttp(gateway, { port: 0, token, maxSessions: 2 });
    const clients: Client[] = [];
    const open = async () => {
      const client = new Client({ name: 'capped', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(endpoint.url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
      clients.push(client);
      return client;
    };
    try {
      const a = await open();
      const b = await open();
      // a was used last: b is now the one idle longest.
      await a.listTools();
      const c = await open();
      await expect(b.listTools()).rejects.toThrow(/404|session not found/i);
      await expect(a.listTools()).resolves.toHaveProperty('tools');
      await expect(c.listTools()).resolves.toHaveProperty('tools');
    } finally {
      await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
      await endpoint.close();
    }
  });
});
