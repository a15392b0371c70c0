import { createHash } from 'node:crypto';

/** SHA-256 of a UTF-8 string as lower-case hex: the one hash every identity in the model uses. */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
