/**
 * The two tiers of the test suite, the one place they are declared (issue #23; docs/runtimes.md,
 * "Test tiers"). vitest.config.ts makes each tier a vitest project of the same name, and
 * test/unit/tiers.test.ts fails when a test file is in no tier or in both, or when an entry
 * below matches no file. A new test file lands in the tier of its folder; a new folder must be
 * added to one of the lists, deliberately.
 *
 * - `node`: what depends on the Node version. CI runs it on Node 20 (the floor), 22, 24 and 26.
 * - `once`: everything else. CI runs it once, on Node 20.
 *
 * `npm test` runs both; `npx vitest run --project 'node*'` runs one (with its `:isolated` files).
 *
 * @module
 */

/** A tier: the folders (ending in `/`) and files, relative to the repository, it holds. */
export interface Tier {
  /** Why its tests are in it. */
  readonly why: string;
  readonly paths: readonly string[];
}

export const TIERS = {
  node: {
    why:
      'Node-sensitive: node:crypto and the portable crypto backend, worker threads, native base64, ' +
      "Node's streams, undici and ws over real sockets, node:http and the framework adapters, the " +
      "built package's ESM and CJS entries on Node's module loader.",
    paths: [
      'test/unit/crypto/',
      'test/unit/core/encoding.test.ts',
      'test/unit/core/base64-fast-paths.test.ts',
      'test/unit/files/',
      'test/unit/transport/',
      'test/integration/transport/',
      'test/unit/webhook/',
      'test/integration/webhook/',
      'test/integration/agent/open-workers.test.ts',
      'test/unit/package/open-worker-dist.test.ts',
    ],
  },
  once: {
    why:
      'The same on every Node: the protocol model, errors, the Agent and the UserClient over the ' +
      'transports above, the reference server, the console in Chromium, the CLI, the examples, ' +
      'chaos, the docs and the package checks.',
    paths: [
      'test/chaos/',
      'test/security/',
      'test/integration/agent/',
      'test/integration/ai/',
      // The kit test docs/ai-sdk.md prints, beside the agent it tests (as a reader saves them).
      'examples/ai-sdk-agent.test.ts',
      'test/integration/capabilities/',
      'test/integration/chat/',
      'test/integration/cli/',
      'test/integration/client/',
      'test/integration/console/',
      'test/integration/examples/',
      'test/integration/files/',
      'test/integration/groups/',
      'test/integration/mcp/',
      'test/integration/otel/',
      'test/integration/server/',
      'test/integration/streams/',
      'test/integration/testing-kit/',
      'test/integration/turns/',
      'test/unit/agent/',
      'test/unit/cli/',
      'test/unit/client/',
      'test/unit/console/',
      'test/unit/core/',
      'test/unit/docs/',
      'test/unit/messaging/',
      'test/unit/package/',
      'test/unit/server/',
      'test/unit/types/',
      'test/unit/chaos-recorder.test.ts',
      'test/unit/fault-proxy.test.ts',
      'test/unit/tiers.test.ts',
    ],
  },
} as const satisfies Record<string, Tier>;

export type TierName = keyof typeof TIERS;

/**
 * The test files that need a module graph of their own. Every other file shares its vitest
 * worker's modules with the files that ran before it (`isolate: false` in vitest.config.ts): each
 * file no longer evaluates the SDK, the reference server and their dependencies again, which was
 * more than half of the suite's CPU time on CI's 2 cores. A file lands here when it replaces a
 * module (`vi.mock`), patches a global other files read (msw's fetch interceptor) or emits process
 * signals (which the signal handlers of earlier files' Agents would answer); each tier then
 * has a second vitest project, `<tier>:isolated`, that runs these with isolation.
 */
export const ISOLATED: readonly string[] = [
  'test/unit/agent/options.test.ts',
  'test/unit/console/live.test.ts',
  'test/unit/core/encoding.test.ts',
  'test/integration/server/ams-serve.test.ts',
  'test/unit/webhook/refs/fetcher.test.ts',
  // Counts the process's signal listeners: an Agent another file left connecting would add one.
  'test/integration/testing-kit/shapes.test.ts',
];

/** Every test file matches this. */
export const TEST_FILES = 'test/**/*.test.ts';

const isFolder = (path: string): boolean => path.endsWith('/');

/** Whether `file` (relative to the repository, `/`-separated) is under `path`. */
export function covers(path: string, file: string): boolean {
  return isFolder(path) ? file.startsWith(path) : file === path;
}

/**
 * The tier of each path is its most specific entry: a file named in one tier is in that tier
 * even when its folder is listed in the other (`test/unit/core/encoding.test.ts` is `node`,
 * the rest of `test/unit/core/` is `once`).
 */
function specificity(path: string): number {
  return isFolder(path) ? path.length : Number.MAX_SAFE_INTEGER;
}

/** The tiers `file` is in: one, or none when no entry covers it (two only if an entry is listed twice). */
export function tiersOf(file: string): TierName[] {
  let best = -1;
  let found: TierName[] = [];
  for (const [name, tier] of Object.entries(TIERS) as [TierName, Tier][]) {
    for (const path of tier.paths) {
      if (!covers(path, file)) continue;
      const s = specificity(path);
      if (s > best) {
        best = s;
        found = [name];
      } else if (s === best && !found.includes(name)) {
        found.push(name);
      }
    }
  }
  return found;
}

/** vitest `include` globs of a tier (folders as `<folder>**\/*.test.ts`). */
export function includeOf(name: TierName): string[] {
  return TIERS[name].paths.map((p) => (isFolder(p) ? `${p}**/*.test.ts` : p));
}

/**
 * vitest `exclude` globs of a tier: the files named in the other tier that lie in one of this
 * tier's folders (the more specific entry wins, as in {@link tiersOf}).
 */
export function excludeOf(name: TierName): string[] {
  const own = TIERS[name].paths.filter(isFolder);
  return (Object.entries(TIERS) as [TierName, Tier][])
    .filter(([other]) => other !== name)
    .flatMap(([, tier]) => tier.paths)
    .filter((p) => own.some((folder) => covers(folder, p) && specificity(p) > specificity(folder)))
    .map((p) => (isFolder(p) ? `${p}**` : p));
}
