import { cleanup, render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { ServerDetail } from '../../src/hosts/ui/lists/ServerDetail.js';
import { plain, server } from './fakeLive.js';

afterEach(cleanup);

/** Decision 10: the detail view (`/mcp NAME`) warns about unset variables, names only. */
describe('ServerDetail: warnings', () => {
  it('shows a warnings line: "GITHUB_PAT is not set"', () => {
    const s = server('github', { warnings: ['GITHUB_PAT is not set', 'GITHUB_HOST is not set'] });
    const frame = plain(render(<ServerDetail server={s} />).lastFrame());
    expect(frame).toMatch(/warnings\s+GITHUB_PAT is not set; GITHUB_HOST is not set/);
  });

  it('shows no warnings line without warnings', () => {
    const frame = plain(render(<ServerDetail server={server('quiet')} />).lastFrame());
    expect(frame).not.toContain('warnings');
  });
});
