import { describe, expect, it } from 'vitest';
import { formatTable } from '../../../src/cli/statusCommand.js';

describe('formatTable', () => {
  it('aligns columns on what shows: an escaped cell is measured escaped', () => {
    expect(formatTable(['NAME', 'STATE'], [['a\rb', 'ok'], ['long-name', 'error']])).toBe(
      ['NAME       STATE', 'a\\rb       ok', 'long-name  error', ''].join('\n'),
    );
  });

  it('prints 200,000 rows (a spread of every cell into Math.max overflowed the stack)', () => {
    const rows = Array.from({ length: 200_000 }, (_, i) => [`server-${i}`, 'blocked']);
    const lines = formatTable(['NAME', 'STATE'], rows).split('\n');
    expect(lines).toHaveLength(200_002);
    expect(lines[200_000]).toBe('server-199999  blocked');
  });
});
