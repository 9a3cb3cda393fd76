/**
 * Finds the dev console's built script (`dist/console/console.js`, made by
 * the package build) and reads it once. The server runs from `dist/` when
 * installed and from `src/` in this repository's tests; both find the file by
 * walking up from this module.
 *
 * @module
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The file name of the console's script bundle. */
export const CONSOLE_SCRIPT = 'console.js';

function moduleDir(): string | undefined {
  if (typeof __filename === 'string') return dirname(__filename);
  try {
    return dirname(fileURLToPath(import.meta.url));
  } catch {
    return undefined;
  }
}

/** The directory holding the built console, or undefined when the package was not built. */
export function findConsoleDir(start: string | undefined = moduleDir()): string | undefined {
  let dir = start;
  for (let i = 0; dir !== undefined && i < 6; i++) {
    for (const candidate of [join(dir, 'console'), join(dir, 'dist', 'console')]) {
      if (existsSync(join(candidate, CONSOLE_SCRIPT))) return candidate;
    }
    const up = dirname(dir);
    dir = up === dir ? undefined : up;
  }
  return undefined;
}

let cached: Uint8Array | undefined;

/** The console's script, or undefined when it was not built. Read once per process. */
export function consoleScript(): Uint8Array | undefined {
  if (cached !== undefined) return cached;
  const dir = findConsoleDir();
  if (dir === undefined) return undefined;
  cached = readFileSync(join(dir, CONSOLE_SCRIPT));
  return cached;
}
