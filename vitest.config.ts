import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';
import { ISOLATED, TIERS, excludeOf, includeOf, tiersOf, type TierName } from './test/tiers.js';

const root = fileURLToPath(new URL('.', import.meta.url));

/**
 * Tests that import a package by name (`agent-messaging-sdk`,
 * `@agent-messaging/dev/testing`, as the docs show) run against the source,
 * not a possibly stale `dist/`: each export `./dist/<x>.js` of
 * packages/<dir>/package.json maps to `packages/<dir>/src/<x>.ts`. The packed
 * tarballs are checked as users see them by .ci/smoke.sh.
 */
function aliasesOf(dir: string): { find: RegExp; replacement: string }[] {
  const pkg = JSON.parse(readFileSync(`${root}packages/${dir}/package.json`, 'utf8')) as {
    name: string;
    exports: Record<string, string | { import: { default: string } }>;
  };
  return Object.entries(pkg.exports)
    .filter(([, target]) => typeof target !== 'string')
    .map(([subpath, target]) => ({
      find: new RegExp(`^${(pkg.name + subpath.slice(1)).replace(/[/.@-]/g, '\\$&')}$`),
      replacement: `${root}packages/${dir}/${(target as { import: { default: string } }).import.default
        .replace(/^\.\/dist\//, 'src/')
        .replace(/\.js$/, '.ts')}`,
    }));
}

/**
 * Two vitest projects per tier of test/tiers.ts: `<tier>`, whose files share their worker's
 * modules (`isolate: false`), and `<tier>:isolated`, the files of {@link ISOLATED} in that tier,
 * each with fresh modules. `vitest run --project 'node*'` runs the Node-sensitive tier.
 */
const projects = (Object.keys(TIERS) as TierName[]).flatMap((name) => {
  const isolated = ISOLATED.filter((file) => tiersOf(file)[0] === name);
  return [
    {
      extends: true as const,
      test: {
        name,
        isolate: false,
        include: includeOf(name),
        exclude: [...configDefaults.exclude, ...excludeOf(name), ...ISOLATED],
      },
    },
    ...(isolated.length === 0
      ? []
      : [{ extends: true as const, test: { name: `${name}:isolated`, isolate: true, include: isolated } }]),
  ];
});

export default defineConfig({
  resolve: { alias: [...aliasesOf('sdk'), ...aliasesOf('dev')] },
  test: {
    projects,
    setupFiles: ['test/setup/fast-check.ts'],
    environment: 'node',
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
    // vitest's default is one worker fewer than the cores: a single worker on CI's 2 cores, which then
    // sits idle while a test waits on sockets, child processes (CLI, examples) or Chromium. Two there;
    // unchanged on larger machines (docs/runtimes.md, "Test tiers").
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // CI writes the JSON report .ci/run counts; VITEST_JSON names another file (the runs on other Nodes).
    reporters: process.env.CI
      ? ['default', ['json', { outputFile: process.env.VITEST_JSON ?? '.ci/out/vitest.json' }]]
      : ['default'],
  },
});
