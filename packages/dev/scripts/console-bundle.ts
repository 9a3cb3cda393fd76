/**
 * The dev console's bundle settings, shared by the dev package's tsup.config.ts
 * and the browser tests (which build the script when `dist/` is missing).
 * Paths are relative to the dev package's folder.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Plugin } from 'esbuild';

/** The dev package's folder. */
export const DEV_PACKAGE_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The stand-in for zod's locales index, relative to the dev package. */
const ZOD_LOCALES = 'src/console/zod-locales.ts';

/** Entry of the console's script, relative to the dev package. */
export const CONSOLE_ENTRY = 'src/console/main.ts';

/** Serves zod's English messages only: its locales index pulls in 40 languages (≈ 260 KB). */
export const zodEnglishOnly: Plugin = {
  name: 'zod-english-only',
  setup(build) {
    build.onResolve({ filter: /locales\/index\.js$/ }, (args) =>
      args.importer.includes(join('node_modules', 'zod'))
        ? { path: resolve(DEV_PACKAGE_DIR, ZOD_LOCALES) }
        : undefined,
    );
  },
};

const SDK_DIR = resolve(DEV_PACKAGE_DIR, '../sdk');

/**
 * Bundles `agent-messaging-sdk/*` from the SDK's source (its `exports` map,
 * `./dist/x.js` read as `./src/x.ts`), so the browser script takes only the
 * modules it uses and never a Node-only chunk of the SDK's build.
 */
export const sdkFromSource: Plugin = {
  name: 'sdk-from-source',
  setup(build) {
    const pkg = JSON.parse(readFileSync(join(SDK_DIR, 'package.json'), 'utf8')) as {
      exports: Record<string, string | { import: { default: string } }>;
    };
    build.onResolve({ filter: /^agent-messaging-sdk(\/.*)?$/ }, (args) => {
      const target = pkg.exports[`.${args.path.slice('agent-messaging-sdk'.length)}`];
      if (target === undefined || typeof target === 'string') return undefined;
      const source = target.import.default.replace(/^\.\/dist\//, 'src/').replace(/\.js$/, '.ts');
      return { path: join(SDK_DIR, source) };
    });
  },
};
