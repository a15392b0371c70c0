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

/** Where a deployment hands the gateway its token (decision 393): a Secret, as an environment variable. */
export const GATEWAY_TOKEN_ENV = 'MCP_LIVE_GATEWAY_TOKEN';

/** A token given in the environment: at least 32 characters of base64url, nothing a guess could hit. */
const GIVEN_TOKEN = /^[A-Za-z0-9_-]{32,512}$/;

/**
 * The token of the gateway's HTTP endpoint: {@link GATEWAY_TOKEN_ENV} when set (a team service's
 * Secret; its settings directory may be read-only), else the one in `file` ({@link gatewayToken}).
 * A weak or malformed given token is refused, in words that never repeat it.
 */
export async function serveToken(file: string, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const given = env[GATEWAY_TOKEN_ENV];
  if (given === undefined || given === '') return gatewayToken(file);
  if (!GIVEN_TOKEN.test(given)) {
    throw new Error(`${GATEWAY_TOKEN_ENV} must be 32 to 512 characters of A-Z, a-z, 0-9, "_" and "-" (for example: openssl rand -base64 32 | tr '+/' '-_' | tr -d '=')`);
  }
  return given;
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
