import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { ownedJsonFile } from '../../sinks/stores/ownedJsonFile.js';

/** The token file in the profile directory: `{"token": "…"}`, mode 0600, written only by mcp-live. */
export const GATEWAY_TOKEN_FILE = 'mcpGatewayToken.json';

/** 32 random bytes, base64url: 43 characters. */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

/**
 * The bearer token of the gateway's HTTP endpoint: the one stored in `file`, or a new one stored
 * there first. Under the owned file's lock, so two gateways starting at once agree on one token;
 * a file that holds no usable token (edited, corrupt) gets a new one (the old bytes are backed up).
 */
export async function gatewayToken(file: string): Promise<string> {
  let token: string | undefined;
  await ownedJsonFile(file).update(async (root, backUp) => {
    if (typeof root.token === 'string' && TOKEN.test(root.token)) {
      token = root.token;
      return false;
    }
    if (root.token !== undefined) await backUp();
    token = randomBytes(32).toString('base64url');
    root.token = token;
    return true;
  });
  return token!;
}

/**
 * Whether an `Authorization` header carries `token`. Compared in constant time (digests of equal
 * length), so the time of a refusal says nothing about how much of a guess was right.
 */
export function bearerMatches(header: string | undefined, token: string): boolean {
  const given = /^Bearer[ ]+(\S+)\s*$/i.exec(header ?? '')?.[1] ?? '';
  const digest = (text: string): Buffer => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(given), digest(token)) && given !== '';
}
