import { defineConfig } from 'tsup';
import { CONSOLE_ENTRY, sdkFromSource, zodEnglishOnly } from './scripts/console-bundle.js';

/**
 * The dev package: the testing kit (the reference server inside) as ESM + CJS
 * with declarations, the `ams` CLI, and the dev console's browser script.
 * `agent-messaging-sdk` stays external for the Node entries (a dependency at
 * the same version, so a bot and the kit share one copy of the SDK); the
 * console's script bundles what it needs from the SDK's source.
 */
export default defineConfig([
  {
    entry: { 'testing/index': 'src/testing/index.ts' },
    format: ['esm', 'cjs'],
    dts: true,
    sourcemap: true,
    clean: false,
    splitting: true,
    treeshake: true,
    target: 'node20',
    platform: 'node',
    keepNames: true,
    minify: false,
  },
  {
    entry: { 'cli/index': 'src/cli/index.ts' },
    format: ['esm'],
    dts: false,
    sourcemap: true,
    clean: false,
    target: 'node20',
    platform: 'node',
    keepNames: true,
    banner: { js: '#!/usr/bin/env node' },
  },
  {
    // The dev console's script (docs/console.md): one browser bundle, the portable crypto inside.
    entry: { 'console/console': CONSOLE_ENTRY },
    esbuildPlugins: [zodEnglishOnly, sdkFromSource],
    format: ['iife'],
    outExtension: () => ({ js: '.js' }),
    dts: false,
    sourcemap: false,
    clean: false,
    target: 'es2022',
    platform: 'browser',
    minify: true,
    noExternal: [/./],
  },
]);
