/**
 * The dev console's bundle settings, shared by tsup.config.ts and the browser
 * tests (which build the script when `dist/` is missing).
 */
import { join, resolve } from 'node:path';
import type { Plugin } from 'esbuild';

/** Serves zod's English messages only: its locales index pulls in 40 languages (≈ 260 KB). */
export const zodEnglishOnly: Plugin = {
  name: 'zod-english-only',
  setup(build) {
    build.onResolve({ filter: /locales\/index\.js$/ }, (args) =>
      args.importer.includes(join('node_modules', 'zod'))
        ? { path: resolve(build.initialOptions.absWorkingDir ?? process.cwd(), ZOD_LOCALES) }
        : undefined,
    );
  },
};

/** The stand-in for zod's locales index, relative to the package root. */
const ZOD_LOCALES = 'src/console/zod-locales.ts';

/** Entry of the console's script. */
export const CONSOLE_ENTRY = 'src/console/main.ts';
