import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/model/sha256Hex.js';

describe('sha256Hex', () => {
  it('matches the standard test vector', () => {
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('hashes UTF-8', () => {
    expect(sha256Hex('é')).not.toBe(sha256Hex('e'));
    expect(sha256Hex('é')).toMatch(/^[0-9a-f]{64}$/);
  });
});
