import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * mcp-live's own package directory, found by walking up from this file to the package.json named
 * `mcp-live`, because the depth differs: `src/cli` (tests), `dist/src/cli` (a clone),
 * `node_modules/mcp-live/dist/src/cli` (an installed tarball).
 */
export function packageRoot(from: string = fileURLToPath(import.meta.url)): string {
  return ownManifest(from).dir;
}

/** The version mcp-live's package.json declares, read at run time (`--version`). */
export function packageVersion(from: string = fileURLToPath(import.meta.url)): string {
  const { version } = ownManifest(from);
  if (typeof version !== 'string') throw new Error(`the package.json of mcp-live above ${from} has no version`);
  return version;
}

function ownManifest(from: string): { dir: string; version?: unknown } {
  for (let dir = dirname(from); ; dir = dirname(dir)) {
    const manifest = readManifest(join(dir, 'package.json'));
    if (manifest?.name === 'mcp-live') return { dir, version: manifest.version };
    if (dirname(dir) === dir) throw new Error(`no package.json of mcp-live above ${from}`);
  }
}

function readManifest(file: string): { name?: unknown; version?: unknown } | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as { name?: unknown; version?: unknown } | undefined;
  } catch {
    return undefined; // none here, or not ours to read: keep walking up
  }
}
