import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveServerConfig } from '../../../src/model/settings/validate.js';
import { connectMcp } from '../../../src/sinks/mcp/connector.js';
import { errorOf } from '../mcpServers.js';

/**
 * A token in a remote server's URL (`$VAR`-expanded or literal) never shows in an error text
 * (found by test/slow). No process is started: an in-process HTTP server quotes what it got.
 */

const TOKEN = 'sk-URLSECRET-123456';
let quoting: Server;
let port: number;

beforeAll(async () => {
  // Answers every request with an error quoting its URL, as many servers do.
  quoting = createServer((req, res) => {
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end(`no route for ${req.url ?? ''}`);
  });
  await new Promise<void>((resolve) => quoting.listen(0, '127.0.0.1', resolve));
  port = (quoting.address() as { port: number }).port;
});
afterAll(() => new Promise<void>((resolve) => quoting.close(() => resolve())));

async function errorFor(entry: Record<string, unknown>): Promise<string> {
  const resolution = resolveServerConfig({ ...entry, timeout: 5_000 }, { TOKEN });
  if (!resolution.ok) throw new Error(resolution.error);
  return (await errorOf(connectMcp('remote', resolution.resolved))).message;
}

describe('secrets in remote URLs', () => {
  it('a query token quoted back by the server is masked', async () => {
    const message = await errorFor({ httpUrl: `http://127.0.0.1:${port}/mcp?api_key=\${TOKEN}` });
    expect(message).toContain('no route for /mcp?api_key=***');
    expect(message).not.toContain('URLSECRET');
  });

  it('a password in the URL, which fetch refuses and names, is masked', async () => {
    const message = await errorFor({ httpUrl: `http://user:\${TOKEN}@127.0.0.1:${port}/mcp` });
    expect(message).not.toContain('URLSECRET');
    expect(message).toContain('***');
  });

  it('a path token quoted back is masked', async () => {
    const message = await errorFor({ httpUrl: `http://127.0.0.1:${port}/s/\${TOKEN}/mcp` });
    expect(message).toContain('no route for /s/***/mcp');
  });
});
