#!/usr/bin/env node
/**
 * After tsc, every `bin` of package.json is made executable (mode 0o755). The build empties dist/
 * first, and tsc writes new files with the default mode (0o644 under the usual umask): a
 * `mcp-live` put on the PATH by `npm link` points into dist/ and would fail with "Permission
 * denied" after each rebuild, and so would every client configured with `mcp-live serve --stdio`
 * (decision 319). An install from a tarball or the registry is not affected (npm sets the mode of
 * the bins it links), a linked clone is.
 *
 * On Windows `chmod` only clears the read-only attribute (0o755 keeps the owner's write), so the
 * same call is harmless there; what runs a bin on Windows is the shim npm writes.
 *
 *   node scripts/postbuild.mjs [packageRoot]      the root defaults to the working directory (npm run's)
 */
import { chmodSync, existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(process.argv[2] ?? process.cwd());
const { bin } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const bins = typeof bin === 'string' ? [bin] : Object.values(bin ?? {});
const missing = bins.filter((file) => !existsSync(join(root, file)));
if (missing.length > 0) {
  process.stderr.write(`postbuild: the build did not write ${missing.join(', ')} (a "bin" of package.json)\n`);
  process.exit(1);
}
for (const file of bins) chmodSync(join(root, file), 0o755);
