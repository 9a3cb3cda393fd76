/**
 * The built package spawns its open worker: from the ESM build and from the
 * CJS build, a pool finds `dist/open-worker.(c)js` next to its chunk, opens
 * an envelope on a worker thread, brings a failure back as the same typed
 * error, and the process exits on its own without `close()` (idle workers
 * are unref'd). Needs `npm run build` first (CI builds before it tests).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../packages/sdk/', import.meta.url));
let dir: string;

/** The check, written once for both module systems (`load` imports or requires the crypto entry). */
const body = (load: string): string => `
const { generateKeys, seal, OpenWorkerPool } = ${load};
const sender = generateKeys();
const me = generateKeys();
const wire = seal({ type: 'text', text: 'from dist' }, {
  sender: { id: 'sender-1', signing: sender.signing },
  recipients: [{ id: 'me', publicKey: me.encryption.publicKey }],
  conversationId: 'conv-1',
});
const threads = [];
const pool = new OpenWorkerPool({ workers: 1, onWorker: (w) => threads.push(w.threadId) });
const options = { recipientId: 'me', keys: me, senderKey: sender.signing.publicKey };
const opened = await pool.open(wire, options);
let failure;
try {
  await pool.open(wire, { ...options, recipientId: 'someone-else' });
} catch (err) {
  failure = { name: err.name, code: err.code, reason: err.reason };
}
console.log(JSON.stringify({ text: opened.payload.text, failure, threads: threads.length, stats: pool.stats() }));
// No pool.close(): the idle worker must not keep the process alive.
`;

function run(file: string): unknown {
  const out = execFileSync(process.execPath, [file], { encoding: 'utf8', timeout: 30_000 });
  return JSON.parse(out.trim().split('\n').at(-1)!);
}

const expected = {
  text: 'from dist',
  failure: { name: 'CryptoError', code: 'DECRYPT_FAILURE', reason: 'no_wrap' },
  threads: 1,
  stats: { workers: 1, openedInWorkers: 2, openedInThread: 0, reopened: 0 },
};

describe('the built open worker', () => {
  beforeAll(() => {
    if (!existsSync(`${root}dist/open-worker.js`))
      throw new Error('dist/ is missing: run `npm run build` first.');
    dir = mkdtempSync(join(tmpdir(), 'ams-open-worker-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is part of the build in both formats', () => {
    expect(existsSync(`${root}dist/open-worker.js`)).toBe(true);
    expect(existsSync(`${root}dist/open-worker.cjs`)).toBe(true);
  });

  it('is spawned from the ESM build, and the process exits without close()', () => {
    const file = join(dir, 'esm.mjs');
    const entry = JSON.stringify(new URL('dist/crypto/index.js', `file://${root}`).href);
    writeFileSync(file, body(`await import(${entry})`));
    expect(run(file)).toEqual(expected);
  });

  it('is spawned from the CJS build, and the process exits without close()', () => {
    const file = join(dir, 'cjs.cjs');
    const entry = JSON.stringify(`${root}dist/crypto/index.cjs`);
    writeFileSync(file, `(async () => {\n${body(`require(${entry})`)}\n})();\n`);
    expect(run(file)).toEqual(expected);
  });
});
