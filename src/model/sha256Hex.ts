import { hash } from 'node:crypto';

/**
 * SHA-256 of a UTF-8 string as lower-case hex: the one hash every identity in the model uses.
 * `crypto.hash` (Node ≥ 20.12) hashes a short string in one call, several times faster than a
 * `createHash` object per value, which counts when every pass hashes every server.
 */
export function sha256Hex(text: string): string {
  return hash('sha256', text, 'hex');
}
