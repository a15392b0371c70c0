import { execFileSync } from 'node:child_process';

/**
 * Builds the package once before the suite so end-to-end tests can spawn the real CLI
 * (dist/) and fixture servers, exactly as a user would run them.
 */
export default function setup(): void {
  execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
}
