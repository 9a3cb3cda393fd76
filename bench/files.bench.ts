/**
 * Encrypted files through the reference server (in a child process): encrypt +
 * upload and download + decrypt in MB/s for 1 MB and 100 MB, beside the raw
 * pipeline measured in the same run on one core (AES-256-GCM of 64 KiB chunks
 * plus SHA-256 of the ciphertext, from memory, no I/O), and the SDK process's
 * peak RSS growth while it moves 100 MB (measured first, before the
 * baselines allocate large buffers) (read from a file on disk, written
 * back to one). Beside each wall-clock figure, CPU time per MB of the SDK
 * process and of the server process (process.cpuUsage, steadier than MB/s on
 * a shared machine) against the raw pipeline's CPU time per MB, and the
 * fixed cost of one request (a 1-byte file). Also the SDK process's garbage
 * collection time per MB (wall time of GC pauses, from PerformanceObserver).
 * Each download writes a new file (the previous round's output is deleted
 * before the timer starts); the 100 MB download is also timed replacing the
 * previous round's file, which costs the kernel time to free the old one
 * (docs/files.md#performance). Last, the CPU budget of the 0.8× target: the wall time per MB it
 * allows against the CPU per MB both processes used and what the machine's cores give in that time
 * (docs/performance.md#second-pass-two-threads-and-the-cpu-budget). Run: npx tsx bench/run.ts files
 */
import { spawn } from 'node:child_process';
import * as c from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { performance, PerformanceObserver } from 'node:perf_hooks';
import { Agent } from '../packages/sdk/src/agent/index.js';
import { MemoryKeyStore } from '../packages/sdk/src/crypto/key-store/index.js';
import {
  createFileEncryptionParams,
  encryptFileStream,
} from '../packages/sdk/src/crypto/file-stream/encrypt.js';
import { decryptFileStream } from '../packages/sdk/src/crypto/file-stream/decrypt.js';
import { fmt, printTable } from './lib/harness.js';

const MB = 1_048_576;
const CHUNK = 65_536;
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 3);

/** CPU time of this process so far, µs (user + system). */
function cpuNow(): number {
  const u = process.cpuUsage();
  return u.user + u.system;
}

/** A rate and the CPU time it took. */
interface Timed {
  /** MB/s, wall clock. */
  readonly mbps: number;
  /** CPU µs per MB of this process. */
  readonly cpuPerMb: number;
}

/** Raw pipeline: seal (or open) `total` bytes in 64 KiB chunks and hash the ciphertext. */
function rawPipeline(total: number, direction: 'encrypt' | 'decrypt'): Timed {
  const key = c.randomBytes(32);
  const block = c.randomBytes(CHUNK);
  const nonce = c.randomBytes(12);
  const e = c.createCipheriv('aes-256-gcm', key, nonce);
  const sealed = Buffer.concat([e.update(block), e.final(), e.getAuthTag()]);
  const start = performance.now();
  const cpu0 = cpuNow();
  const hash = c.createHash('sha256');
  for (let done = 0; done < total; done += CHUNK) {
    if (direction === 'encrypt') {
      const cipher = c.createCipheriv('aes-256-gcm', key, nonce);
      const out = Buffer.concat([cipher.update(block), cipher.final(), cipher.getAuthTag()]);
      hash.update(out);
    } else {
      hash.update(sealed);
      const d = c.createDecipheriv('aes-256-gcm', key, nonce);
      d.setAuthTag(sealed.subarray(CHUNK));
      d.update(sealed.subarray(0, CHUNK));
      d.final();
    }
  }
  hash.digest();
  return {
    mbps: total / MB / ((performance.now() - start) / 1000),
    cpuPerMb: (cpuNow() - cpu0) / (total / MB),
  };
}

/** The SDK's own AMSF pipeline without I/O: encrypt + SHA-256 (or SHA-256 + decrypt) of `total` bytes from memory. */
async function sdkPipeline(total: number, direction: 'encrypt' | 'decrypt'): Promise<Timed> {
  const block = c.randomBytes(MB);
  const params = createFileEncryptionParams();
  function* source(): Generator<Uint8Array> {
    for (let done = 0; done < total; done += MB) yield block;
  }
  const sealed: Uint8Array[] = [];
  if (direction === 'decrypt')
    for await (const piece of encryptFileStream(source(), params)) sealed.push(piece);
  const start = performance.now();
  const cpu0 = cpuNow();
  const hash = c.createHash('sha256');
  if (direction === 'encrypt') {
    for await (const piece of encryptFileStream(source(), params)) hash.update(piece);
  } else {
    const tapped = function* (): Generator<Uint8Array> {
      for (const piece of sealed) {
        hash.update(piece);
        yield piece;
      }
    };
    for await (const piece of decryptFileStream(tapped(), params.key)) void piece;
  }
  hash.digest();
  return {
    mbps: total / MB / ((performance.now() - start) / 1000),
    cpuPerMb: (cpuNow() - cpu0) / (total / MB),
  };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

async function writeRandomFile(path: string, bytes: number): Promise<void> {
  const out = createWriteStream(path);
  const block = c.randomBytes(MB);
  for (let done = 0; done < bytes; done += MB) {
    if (!out.write(block.subarray(0, Math.min(MB, bytes - done)))) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
}

/** Peak RSS growth above the level at the start, sampled every 5 ms while `fn` runs. */
async function withPeakRss<T>(fn: () => Promise<T>): Promise<{ result: T; growth: number }> {
  (globalThis as { gc?: () => void }).gc?.();
  const before = process.memoryUsage.rss();
  let peak = before;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 5);
  try {
    const result = await fn();
    peak = Math.max(peak, process.memoryUsage.rss());
    return { result, growth: peak - before };
  } finally {
    clearInterval(timer);
  }
}

async function startServer(): Promise<{
  url: string;
  agentId: string;
  token: string;
  ready: () => Promise<string>;
  /** The server process's CPU time so far, µs. */
  cpu: () => Promise<number>;
  stop: () => void;
}> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/lib/files-server.ts'], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const first = JSON.parse(String((await lines.next()).value)) as {
    url: string;
    agentId: string;
    token: string;
  };
  return {
    ...first,
    async ready() {
      child.stdin!.write('go\n');
      return (JSON.parse(String((await lines.next()).value)) as { conversationId: string }).conversationId;
    },
    async cpu() {
      child.stdin!.write('cpu\n');
      const u = JSON.parse(String((await lines.next()).value)) as { user: number; system: number };
      return u.user + u.system;
    },
    stop: () => child.stdin!.end(),
  };
}

/** One timed transfer: wall MB/s and CPU µs per MB of the SDK and of the server. */
interface Transfer {
  readonly mbps: number;
  readonly sdkCpuPerMb: number;
  readonly serverCpuPerMb: number;
  /** Garbage-collection pauses of the SDK process, µs per MB (wall time). */
  readonly gcPerMb: number;
}

/** Start and duration (ms, performance.now() time) of every GC of this process. */
const gcs: { start: number; duration: number }[] = [];
const gcObserver = new PerformanceObserver((list) => {
  for (const e of list.getEntries()) gcs.push({ start: e.startTime, duration: e.duration });
});

/** GC time (ms) of the GCs that started between `from` and `to`, once the observer has reported them. */
async function gcBetween(from: number, to: number): Promise<number> {
  await new Promise((resolve) => setImmediate(resolve));
  let total = 0;
  for (const gc of gcs) if (gc.start >= from && gc.start <= to) total += gc.duration;
  return total;
}

async function timed<T>(
  bytes: number,
  serverCpu: () => Promise<number>,
  fn: () => Promise<T>,
): Promise<{ result: T; transfer: Transfer }> {
  const server0 = await serverCpu();
  const cpu0 = cpuNow();
  const t0 = performance.now();
  const result = await fn();
  const t1 = performance.now();
  const wall = t1 - t0;
  const sdkCpu = cpuNow() - cpu0;
  const serverCpuUsed = (await serverCpu()) - server0;
  const mb = bytes / MB;
  const gc = await gcBetween(t0, t1);
  return {
    result,
    transfer: {
      mbps: mb / (wall / 1000),
      sdkCpuPerMb: sdkCpu / mb,
      serverCpuPerMb: serverCpuUsed / mb,
      gcPerMb: (gc * 1000) / mb,
    },
  };
}

const medianOf = <T>(xs: readonly T[], f: (x: T) => number): number => median(xs.map(f));

export default async function run(): Promise<void> {
  gcObserver.observe({ entryTypes: ['gc'] });
  const server = await startServer();
  const dir = await mkdtemp(join(tmpdir(), 'ams-files-bench-'));
  const agent = new Agent({
    baseUrl: server.url,
    agentId: server.agentId,
    token: server.token,
    keyStore: new MemoryKeyStore(),
    shutdownSignals: false,
  });
  const pause = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 250)); // under 5 uploads/s (not timed)
  try {
    await agent.connect();
    const conversationId = await server.ready();
    // Baselines measured between the transfers below, so that they see the same machine load.
    const rawEnc: Timed[] = [];
    const rawDec: Timed[] = [];
    const sdkEnc: Timed[] = [];
    const sdkDec: Timed[] = [];
    const baselines = async (): Promise<void> => {
      rawEnc.push(rawPipeline(100 * MB, 'encrypt'));
      sdkEnc.push(await sdkPipeline(100 * MB, 'encrypt'));
      rawDec.push(rawPipeline(100 * MB, 'decrypt'));
      sdkDec.push(await sdkPipeline(100 * MB, 'decrypt'));
    };
    const rss: string[][] = [];
    // RSS first, in a process that has not yet touched large buffers (the baselines below do).
    {
      const path = join(dir, 'rss-in');
      await writeRandomFile(path, 100 * MB);
      const { result: file, growth: upGrowth } = await withPeakRss(() =>
        agent.files.uploadOnly(conversationId, path, { name: 'rss.bin' }),
      );
      const { growth: downGrowth } = await withPeakRss(async () => {
        await (await agent.files.download(file)).toFile(join(dir, 'rss-out'));
      });
      await pause();
      const { result: again, growth: upWarm } = await withPeakRss(() =>
        agent.files.uploadOnly(conversationId, path, { name: 'rss.bin' }),
      );
      const { growth: downWarm } = await withPeakRss(async () => {
        await (await agent.files.download(again)).toFile(join(dir, 'rss-out'));
      });
      rss.push([
        'encrypt + upload, 100 MB (path → service)',
        fmt(upGrowth / MB, 1),
        fmt(upWarm / MB, 1),
        '32',
      ]);
      rss.push([
        'download + decrypt, 100 MB (service → path)',
        fmt(downGrowth / MB, 1),
        fmt(downWarm / MB, 1),
        '32',
      ]);
      await rm(path);
    }
    const rows: string[][] = [];
    const cpuRows: string[][] = [];
    const budgetRows: string[][] = [];
    for (const size of [1 * MB, 100 * MB]) {
      const path = join(dir, `in-${size}`);
      await writeRandomFile(path, size);
      const up: Transfer[] = [];
      const down: Transfer[] = [];
      const replacing: Transfer[] = [];
      const runs = size === MB ? 10 : ROUNDS;
      for (let r = 0; r < runs; r++) {
        if (size > MB || r % 5 === 0) await baselines();
        await pause();
        const { result: file, transfer: u } = await timed(size, server.cpu, () =>
          agent.files.uploadOnly(conversationId, path, { name: 'bench.bin' }),
        );
        up.push(u);
        // A new file each time: deleting the previous round's output is not part of a download.
        await rm(join(dir, 'out.bin'), { force: true });
        const { transfer: d } = await timed(size, server.cpu, async () => {
          await (await agent.files.download(file)).toFile(join(dir, 'out.bin'));
        });
        down.push(d);
        if (size > MB) {
          // The same download replacing the file just written (what this bench measured before).
          const { transfer: o } = await timed(size, server.cpu, async () => {
            await (await agent.files.download(file)).toFile(join(dir, 'out.bin'));
          });
          replacing.push(o);
        }
      }
      const label = size === MB ? '1 MB' : '100 MB';
      for (const [name, xs, raw] of [
        [`encrypt + upload, ${label}`, up, rawEnc],
        [`download + decrypt, ${label}`, down, rawDec],
        ...(size > MB
          ? ([[`download + decrypt, ${label}, replacing an existing file`, replacing, rawDec]] as const)
          : []),
      ] as const) {
        const mbps = medianOf(xs, (x) => x.mbps);
        const rawMbps = medianOf(raw, (x) => x.mbps);
        rows.push([name, fmt(mbps, 0), fmt(rawMbps, 0), fmt(mbps / rawMbps, 2)]);
        const sdk = medianOf(xs, (x) => x.sdkCpuPerMb);
        const srv = medianOf(xs, (x) => x.serverCpuPerMb);
        const rawCpu = medianOf(raw, (x) => x.cpuPerMb);
        cpuRows.push([
          name,
          fmt(sdk, 0),
          fmt(
            medianOf(xs, (x) => x.gcPerMb),
            0,
          ),
          fmt(srv, 0),
          fmt(rawCpu, 0),
          fmt(rawCpu / sdk, 2),
          fmt(rawCpu / (sdk + srv), 2),
        ]);
        if (size > MB) {
          // What 0.8× would take: the wall time per MB it allows, against the CPU both processes used per MB.
          const targetWall = 1e6 / (0.8 * rawMbps);
          const cores = availableParallelism();
          budgetRows.push([
            name,
            fmt(targetWall, 0),
            fmt(sdk + srv, 0),
            fmt(cores * targetWall, 0),
            fmt((sdk + srv) / (cores * targetWall), 2),
            fmt(sdk / targetWall, 2),
          ]);
        }
      }
    }
    for (const [name, xs, raw] of [
      ['SDK AMSF encrypt + SHA-256, no I/O, 100 MB', sdkEnc, rawEnc],
      ['SDK SHA-256 + AMSF decrypt, no I/O, 100 MB', sdkDec, rawDec],
    ] as const) {
      const mbps = medianOf(xs, (x) => x.mbps);
      const rawMbps = medianOf(raw, (x) => x.mbps);
      rows.push([name, fmt(mbps, 0), fmt(rawMbps, 0), fmt(mbps / rawMbps, 2)]);
      const sdk = medianOf(xs, (x) => x.cpuPerMb);
      const rawCpu = medianOf(raw, (x) => x.cpuPerMb);
      cpuRows.push([name, fmt(sdk, 0), '–', '–', fmt(rawCpu, 0), fmt(rawCpu / sdk, 2), '–']);
    }
    // The fixed cost of one request: a 1-byte file up and down (what the 1 MB figures pay on top of the bytes).
    const fixed: string[][] = [];
    {
      const path = join(dir, 'one-byte');
      await writeRandomFile(path, 1);
      const up: { wall: number; sdk: number; srv: number }[] = [];
      const down: { wall: number; sdk: number; srv: number }[] = [];
      for (let r = 0; r < 10; r++) {
        await pause();
        const { result: file, transfer: u } = await timed(MB, server.cpu, () =>
          agent.files.uploadOnly(conversationId, path, { name: 'one.bin' }),
        );
        up.push({ wall: 1000 / u.mbps, sdk: u.sdkCpuPerMb / 1000, srv: u.serverCpuPerMb / 1000 });
        const { transfer: d } = await timed(MB, server.cpu, async () => {
          await (await agent.files.download(file)).toFile(join(dir, 'one-out'));
        });
        down.push({ wall: 1000 / d.mbps, sdk: d.sdkCpuPerMb / 1000, srv: d.serverCpuPerMb / 1000 });
      }
      for (const [name, xs] of [
        ['encrypt + upload, 1 byte', up],
        ['download + decrypt, 1 byte', down],
      ] as const) {
        fixed.push([
          name,
          fmt(
            medianOf(xs, (x) => x.wall),
            1,
          ),
          fmt(
            medianOf(xs, (x) => x.sdk),
            1,
          ),
          fmt(
            medianOf(xs, (x) => x.srv),
            1,
          ),
        ]);
      }
    }
    printTable(
      'File transfer through the reference server (MB/s, median; baseline: raw AES-256-GCM 64 KiB chunks + SHA-256, one core, same run; target ≥ 0.8×)',
      ['operation', 'SDK MB/s', 'raw MB/s', '× raw'],
      rows,
    );
    printTable(
      "CPU time per MB (µs, median; process.cpuUsage of the SDK process and of the server process; SDK GC = wall time of the SDK process's GC pauses; × raw = raw CPU µs/MB ÷ transfer CPU µs/MB)",
      [
        'operation',
        'SDK µs/MB',
        'SDK GC µs/MB',
        'server µs/MB',
        'raw µs/MB',
        '× raw (SDK CPU)',
        '× raw (SDK + server CPU)',
      ],
      cpuRows,
    );
    printTable(
      `CPU budget of the 0.8× target (µs per MB, medians above; ${availableParallelism()} cores): "target wall" is the time per MB that 0.8× allows; "÷ cores" > 1: SDK + server need more CPU than the cores give in that time, so no overlap reaches 0.8×; "SDK ÷ target" > 1: the SDK's part alone takes longer on one thread`,
      ['operation', 'target wall', 'SDK + server CPU', 'cores × target wall', '÷ cores', 'SDK ÷ target'],
      budgetRows,
    );
    printTable(
      'Fixed cost of one request: a 1-byte file (ms, median of 10)',
      ['operation', 'wall ms', 'SDK CPU ms', 'server CPU ms'],
      fixed,
    );
    printTable(
      'Peak RSS growth of the SDK process (MB; target < 32)',
      ['operation', 'first transfer MB', 'second transfer MB', 'target'],
      rss,
    );
  } finally {
    gcObserver.disconnect();
    await agent.close();
    server.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
