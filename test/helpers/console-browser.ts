/**
 * Helpers of the dev console's browser tests: where Debian's Chromium is,
 * whether the tests may skip without it, and the console script (built by
 * `npm run build`; built here with the same esbuild options when missing).
 */
import { existsSync } from 'node:fs';
import { build } from 'esbuild';
import {
  CONSOLE_ENTRY,
  DEV_PACKAGE_DIR,
  sdkFromSource,
  zodEnglishOnly,
} from '../../packages/dev/scripts/console-bundle.js';

/** Debian's Chromium (`apt-get install chromium`), or `AMS_CHROMIUM`. */
export const CHROMIUM_PATH = process.env['AMS_CHROMIUM'] ?? '/usr/bin/chromium';

/** Browser tests skip only when Chromium is absent outside CI; in CI its absence fails them. */
export const SKIP_BROWSER = !existsSync(CHROMIUM_PATH) && process.env['CI'] !== 'true';

/** One line saying why the browser tests skip. */
export const SKIP_REASON = `skipped: no Chromium at ${CHROMIUM_PATH} (apt-get install -y chromium, or set AMS_CHROMIUM); CI never skips`;

const root = `${DEV_PACKAGE_DIR}/`;

/** Makes sure `dist/console/console.js` exists (same options as packages/dev/tsup.config.ts). */
export async function ensureConsoleBuilt(): Promise<void> {
  if (existsSync(`${root}dist/console/console.js`)) return;
  await build({
    entryPoints: [`${root}${CONSOLE_ENTRY}`],
    absWorkingDir: root,
    plugins: [zodEnglishOnly, sdkFromSource],
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    outfile: `${root}dist/console/console.js`,
    // As tsup does for a browser build: Node's modules (and undici, which only the SDK's Node
    // transport imports) stay out; nothing the console reaches uses them.
    external: ['node:*', 'undici'],
    logLevel: 'error',
  });
}
