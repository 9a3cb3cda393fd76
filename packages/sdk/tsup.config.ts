import { defineConfig } from 'tsup';

/**
 * The SDK's entries: ESM + CJS with declarations for both. `npm run build`
 * empties dist/ first; no config cleans (tsup builds the configs in parallel,
 * and a clean in one removed the declarations another had written).
 * @noble/* are ESM-only, so they are bundled into the portable crypto backend
 * instead of being required at run time from the CJS build. Source maps are
 * built for local debugging and left out of the tarball (`files` in package.json).
 */
export default defineConfig([
  {
    entry: {
      index: 'src/index.ts',
      'crypto/index': 'src/crypto/index.ts',
      protocol: 'src/protocol.ts',
      // The MCP bridge (docs/mcp.md): here, so it shares the root's chunks (one Agent class, one
      // copy of its declarations). It imports values from the protocol entry only (types from the
      // root), so the root entry's own files do not change; @modelcontextprotocol/sdk, a peer, stays external.
      'mcp/index': 'src/mcp/index.ts',
      // The Chat SDK adapter (docs/chat-sdk.md): `chat` is an optional peer, left external.
      'chat/index': 'src/chat/index.ts',
      // The open pool's worker thread (src/crypto/open-pool): spawned by path, next to the chunks.
      'open-worker': 'src/crypto/open-pool/open-worker.node.ts',
    },
    format: ['esm', 'cjs'],
    dts: true,
    sourcemap: true,
    clean: false,
    splitting: true,
    treeshake: true,
    target: 'node20',
    platform: 'node',
    // keepNames stays: without it two exports lose their `.name` here (`KeyRing` becomes `_KeyRing`,
    // `open` becomes `open2`). minifyWhitespace (whitespace and comments only, no renaming): about a
    // third less code for the main entry to compile (issue #23, docs/performance.md).
    keepNames: true,
    minify: false,
    minifyWhitespace: true,
    // zod is bundled too, imported as a namespace (`import * as zod from 'zod'` in src/core/lazy-zod.ts)
    // so esbuild keeps only what the schemas use (no locale but English): the main entry's import time
    // (issue #23, docs/performance.md). Declarations still name the `zod` package (a dependency).
    noExternal: [/^@noble\//, /^zod$/],
  },
  {
    // The webhook entries are built apart: sharing chunks with the root entry split
    // `./webhook` into 11 files and made its import slower than before the subpaths
    // existed (docs/webhooks.md, "Size"). Errors from these entries are recognised by
    // the root's guards (Symbol.for brand). Size target of `./webhook`: ≤ 50 KB.
    // - keepNames off: no `__name(...)` wrappers (-4.4 KB). Error names come from
    //   each class's `name` field, and no bundled name collides (docs/webhooks.md).
    // - minifyWhitespace only: no identifier mangling, no syntax rewrites, so the
    //   output keeps the source's names and statements; sourcemaps map it back.
    entry: {
      'webhook/index': 'src/webhook/index.ts',
      'webhook/node': 'src/webhook/node.ts',
      'webhook/express': 'src/webhook/express.ts',
      'webhook/fastify': 'src/webhook/fastify.ts',
      'webhook/fetch': 'src/webhook/fetch.ts',
      'webhook/redis': 'src/webhook/redis.ts',
    },
    format: ['esm', 'cjs'],
    dts: true,
    sourcemap: true,
    clean: false,
    splitting: true,
    treeshake: true,
    target: 'node20',
    platform: 'node',
    keepNames: false,
    minify: false,
    minifyWhitespace: true,
  },
  {
    // The AI SDK bridge (`agent-messaging-sdk/ai`, docs/ai-sdk.md) is built apart, so that it
    // never shares a chunk with the root entry: importing it leaves the root's files as they are.
    // It imports only types: from `ai` (an optional peer dependency) and from the SDK by its
    // package name, both external, so its declarations refer to the root entry's types instead of
    // copying them (a copy of a class with private fields would not accept the root's `Agent`).
    entry: { 'ai/index': 'src/ai/index.ts' },
    format: ['esm', 'cjs'],
    dts: { compilerOptions: { paths: { 'agent-messaging-sdk': ['./src/index.ts'] } } },
    sourcemap: true,
    clean: false,
    splitting: false,
    treeshake: true,
    target: 'node20',
    platform: 'node',
    keepNames: false,
    minify: false,
    external: ['ai', 'agent-messaging-sdk'],
  },
  {
    // #25: `./otel` (OpenTelemetry). Built apart, like the webhook entries: it imports
    // only types from the root entry and `@opentelemetry/api` (an optional peer, external).
    entry: { otel: 'src/otel.ts' },
    format: ['esm', 'cjs'],
    dts: true,
    sourcemap: true,
    clean: false,
    splitting: false,
    treeshake: true,
    target: 'node20',
    platform: 'node',
    external: ['@opentelemetry/api'],
  },
]);
