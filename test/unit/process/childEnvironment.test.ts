import { describe, expect, it } from 'vitest';
import { childEnvironment } from '../../../src/process/serverProcess.js';

/** docs/contract.md, "Server entries", and decision 275: the child's environment, inherited and overlaid, per platform. */

const inherited = { Path: 'C:\\Windows', HOME: '/home/ann', unset: undefined };

describe('childEnvironment', () => {
  it('overlays the entry env on the inherited one, dropping unset variables', () => {
    expect(childEnvironment({ API_KEY: 'k', HOME: '/elsewhere' }, inherited, 'linux')).toEqual({ Path: 'C:\\Windows', HOME: '/elsewhere', API_KEY: 'k' });
  });

  it('on POSIX names are case-sensitive: PATH and Path are two variables', () => {
    expect(childEnvironment({ PATH: '/opt/bin' }, inherited, 'darwin')).toEqual({ Path: 'C:\\Windows', PATH: '/opt/bin', HOME: '/home/ann' });
  });

  it("on win32 an entry's PATH replaces the inherited Path instead of standing beside it", () => {
    const env = childEnvironment({ PATH: 'C:\\tools' }, inherited, 'win32');
    expect(env).toEqual({ PATH: 'C:\\tools', HOME: '/home/ann' });
    expect(Object.keys(env).filter((key) => key.toUpperCase() === 'PATH')).toEqual(['PATH']);
  });

  it('reads process.env by default', () => {
    expect(childEnvironment({})).toEqual(expect.objectContaining({ PATH: process.env.PATH }));
  });
});
