import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { GATEWAY_TOKEN_ENV, gatewayToken, serveToken } from '../../../src/hosts/gateway/gatewayToken.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const tokenFile = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'serve-token-'));
  dirs.push(dir);
  return join(dir, 'mcpGatewayToken.json');
};

describe('serveToken: the HTTP endpoint’s token, from a Secret in the environment or the token file (decision 393)', () => {
  it('without the variable: the file’s token, made on first use', async () => {
    const file = tokenFile();
    const token = await serveToken(file, {});
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await gatewayToken(file)).toBe(token);
  });

  it('with it: the given token, and the file is not touched', async () => {
    const file = tokenFile();
    const given = 'A'.repeat(20) + '_-b'.repeat(6);
    expect(await serveToken(file, { [GATEWAY_TOKEN_ENV]: given })).toBe(given);
    expect(await gatewayToken(file)).not.toBe(given);
  });

  it('a short or malformed one is refused in words that never repeat it', async () => {
    for (const bad of ['short-secret', `${'x'.repeat(40)} space`, `${'y'.repeat(40)}/+=`]) {
      const refused = serveToken(tokenFile(), { [GATEWAY_TOKEN_ENV]: bad });
      await expect(refused).rejects.toThrow(GATEWAY_TOKEN_ENV);
      await expect(refused).rejects.not.toThrow(bad);
    }
  });
});
