import { afterEach, describe, expect, it } from 'vitest';
import { connectMcp } from '../../../src/sinks/mcp/connector.js';
import { sharedSchemaValidator } from '../../../src/sinks/mcp/schemaValidator.js';
import { closeTracked, connectOnce, fixture, nodeServer, track } from '../mcpServers.js';
import { noLeftoversAfterAll } from '../workspace.js';

/**
 * Decision 263: every client shares one lazily made Ajv, and a tool's outputSchema is compiled on
 * the first result it checks — judged as the SDK's own validator judges, through real servers.
 */
afterEach(closeTracked);
noLeftoversAfterAll();

const tiny = (...args: string[]) => nodeServer(fixture('tiny-server.mjs'), args);

describe('tool results are checked against their outputSchema by one shared validator', () => {
  it('a result that fits passes, one that does not fails that call with the reason; two servers with the same $id do not meet', async () => {
    const [a, b] = await Promise.all([
      connectOnce(connectMcp('a', tiny('--tools', 'count', '--output-schema', 'https://example.com/count.json'))).then(track),
      connectOnce(connectMcp('b', tiny('--tools', 'count', '--output-schema', 'https://example.com/count.json'))).then(track),
    ]);
    expect(await a.callTool('count', { n: 1 })).toMatchObject({ structuredContent: { n: 1 } });
    // The second server's schema has the same $id: compiled on its own (Ajv would refuse a second
    // schema under one $id if the first were still registered).
    expect(await b.callTool('count', { n: 2 })).toMatchObject({ structuredContent: { n: 2 } });
    await expect(a.callTool('count', { n: 'one' })).rejects.toThrow(/Structured content does not match the tool's output schema: data\/n must be number/);
    // The server stays usable.
    expect(await a.callTool('count', { n: 3 })).toMatchObject({ structuredContent: { n: 3 } });
  });
});

describe('sharedSchemaValidator', () => {
  it('compiles on the first check, not when asked for the validator: a schema Ajv cannot compile fails its check only', () => {
    const broken = sharedSchemaValidator.getValidator({ type: 'object', properties: { n: { $ref: '#/nowhere' } } });
    expect(() => broken({ n: 1 })).toThrow(/can't resolve reference #\/nowhere/);
    const fine = sharedSchemaValidator.getValidator<{ n: number }>({ type: 'object', required: ['n'] });
    expect(fine({ n: 1 })).toEqual({ valid: true, data: { n: 1 }, errorMessage: undefined });
    expect(fine({})).toEqual({ valid: false, data: undefined, errorMessage: "data must have required property 'n'" });
  });

  it('keeps no schema registered: the same $id with another shape compiles again, each judged by its own', () => {
    const id = 'https://example.com/same.json';
    const numbers = sharedSchemaValidator.getValidator({ $id: id, type: 'number' });
    const strings = sharedSchemaValidator.getValidator({ $id: id, type: 'string' });
    expect(numbers(1).valid).toBe(true);
    expect(strings('x').valid).toBe(true);
    expect(strings(1).valid).toBe(false);
  });
});
