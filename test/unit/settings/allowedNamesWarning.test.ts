import { describe, expect, it } from 'vitest';
import { allowedNamesWarning } from '../../../src/model/settings/allowedNamesWarning.js';

describe('allowedNamesWarning (--allowed-mcp-server-names entries that match no server)', () => {
  it('names each entry, literal or glob, that matches no configured server, once', () => {
    expect(allowedNamesWarning(['github', 'gihtub', 'git*', 'nope*', 'gihtub'], ['github', 'gitlab'])).toBe(
      '--allowed-mcp-server-names: "gihtub", "nope*" match no configured server',
    );
    expect(allowedNamesWarning(['gihtub'], [])).toBe('--allowed-mcp-server-names: "gihtub" matches no configured server');
  });

  it('says nothing when every entry matches, or without the flag', () => {
    expect(allowedNamesWarning(['github', 'git?ab', '*'], ['github', 'gitlab'])).toBeUndefined();
    expect(allowedNamesWarning(undefined, ['github'])).toBeUndefined();
  });

  it('matches as admission does: case-sensitive, so a case mismatch is named', () => {
    expect(allowedNamesWarning(['GitHub'], ['github'])).toContain('"GitHub"');
  });
});
