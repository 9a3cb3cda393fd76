/**
 * Where the open worker's script is, and the runtime's `Worker` class. Both
 * are found at run time, so that importing the SDK never fails where there
 * are no worker threads (Workers, browsers): there the answer is `undefined`
 * and envelopes are opened on the calling thread.
 *
 * The script is a file of the build (`open-worker.js` for the ESM build,
 * `open-worker.cjs` for the CJS build) at the root of `dist/`; the code that
 * spawns it sits in `dist/` or one folder below, so both places are tried.
 * From the sources (tests, `tsx`), the `.ts` file is loaded through the
 * `tsx` loader (a development dependency).
 *
 * @module
 */
import type * as WorkerThreads from 'node:worker_threads';

type WorkerThreadsModule = typeof WorkerThreads;

/** What the pool uses of a `node:worker_threads` Worker. */
export type WorkerLike = Pick<
  WorkerThreads.Worker,
  'postMessage' | 'on' | 'ref' | 'unref' | 'terminate' | 'threadId'
>;
interface ProcessLike {
  getBuiltinModule?: (id: string) => unknown;
}
interface UrlLike {
  pathToFileURL(path: string): URL;
}
interface FsLike {
  existsSync(path: string | URL): boolean;
}

function builtin<T>(id: string): T | undefined {
  const proc = (globalThis as { process?: ProcessLike }).process;
  try {
    return proc?.getBuiltinModule?.(id) as T | undefined;
  } catch {
    return undefined;
  }
}

/** node:worker_threads, or undefined on a runtime without it. */
export function workerThreads(): WorkerThreadsModule | undefined {
  const wt = builtin<WorkerThreadsModule>('node:worker_threads');
  return typeof wt?.Worker === 'function' ? wt : undefined;
}

/**
 * The URL of this module: `import.meta.url` in ESM; in the CJS build esbuild
 * empties `import.meta`, and `__filename` names the file instead.
 */
function selfUrl(): string | undefined {
  const meta = import.meta as { url?: unknown };
  if (typeof meta.url === 'string') return meta.url;
  const file = typeof __filename === 'string' ? __filename : undefined;
  const url = builtin<UrlLike>('node:url');
  return file === undefined || url === undefined ? undefined : url.pathToFileURL(file).href;
}

/** How to start the worker: the built script's URL, or (from the sources) code to evaluate. */
export type WorkerScript = { readonly url: URL } | { readonly code: string };

interface ModuleLike {
  createRequire(from: string): { resolve(id: string): string };
}

/** From the sources: code that registers the tsx loader (CommonJS hooks work in a worker) and loads the `.ts` file. */
function sourceScript(self: string): WorkerScript | undefined {
  const mod = builtin<ModuleLike>('node:module');
  const url = builtin<{ fileURLToPath(u: URL): string }>('node:url');
  if (mod === undefined || url === undefined) return undefined;
  try {
    const api = mod.createRequire(self).resolve('tsx/cjs/api');
    const file = url.fileURLToPath(new URL('./open-worker.node.ts', self));
    return { code: `require(${JSON.stringify(api)}).register();\nrequire(${JSON.stringify(file)});` };
  } catch {
    return undefined;
  }
}

/** The worker script next to this module, or undefined when it cannot be found (e.g. bundled into an app). */
export function findWorkerScript(): WorkerScript | undefined {
  const self = selfUrl();
  const fs = builtin<FsLike>('node:fs');
  if (self === undefined || fs === undefined) return undefined;
  const ext = /\.(c?js|mjs|ts)$/.exec(new URL(self).pathname)?.[1] ?? 'js';
  if (ext === 'ts') return sourceScript(self);
  for (const rel of [`./open-worker.${ext}`, `../open-worker.${ext}`]) {
    const url = new URL(rel, self);
    try {
      if (fs.existsSync(url)) return { url };
    } catch {
      // not there
    }
  }
  return undefined;
}
