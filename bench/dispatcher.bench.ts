/**
 * WebSocket dispatcher benchmarks (`npx tsx bench/run.ts dispatcher`).
 *
 * 1. In-process frame handling (socket message → parseWsFrame → route →
 *    `event` listener) per second for a 1 KB `message.new` frame and a small
 *    cleartext frame, beside `JSON.parse` alone and `parseWsFrame` alone.
 * 2. End to end over loopback: a `ws` server pushes frames to one
 *    dispatcher, beside a bare `ws` client doing `JSON.parse` per frame, in
 *    the same run.
 */
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { WebSocket, WebSocketServer } from 'ws';
import { parseWsFrame } from '../packages/sdk/src/core/protocol/ws-frames.js';
import {
  createWsDispatcher,
  type WebSocketConstructor,
  type WebSocketLike,
} from '../packages/sdk/src/transport/ws/index.js';
import { fmt, measure, printTable } from './lib/harness.js';

const TOKEN = 'hsk_' + 'Bn7m'.repeat(10);
const ENVELOPE = 'QUJD'.repeat(256);
const BIG = JSON.stringify({
  type: 'message.new',
  version: 'v1',
  wire_envelope: ENVELOPE,
  metadata: { conversation_id: 'conv_1', sender_id: 'user_1', created_at: '2026-01-01T00:00:00.000Z' },
  delivery_id: '01943a6f-8c00-7000-8000-000000000001',
});
const SMALL = JSON.stringify({
  type: 'relation.established',
  payload: { user_id: 'user_1', conversation_id: 'conv_1' },
  delivery_id: '01943a6f-8c00-7000-8000-000000000002',
});

/** A socket the benchmark drives directly. */
class BenchSocket {
  static last: BenchSocket | undefined;
  #message: ((e: { data: unknown }) => void) | undefined;
  #open: (() => void) | undefined;
  #close: ((e: { code: number; reason: string }) => void) | undefined;
  constructor() {
    BenchSocket.last = this;
  }
  addEventListener(type: string, l: (e: never) => void): void {
    if (type === 'message') this.#message = l as (e: { data: unknown }) => void;
    if (type === 'open') this.#open = l as () => void;
    if (type === 'close') this.#close = l as (e: { code: number; reason: string }) => void;
  }
  send(): void {}
  close(code?: number): void {
    this.#close?.({ code: code ?? 1005, reason: '' });
  }
  open(): void {
    this.#open?.();
  }
  deliver(text: string): void {
    this.#message?.({ data: text });
  }
}

async function inProcess(): Promise<void> {
  const d = createWsDispatcher({
    url: 'ws://bench.invalid/ws',
    agentId: 'a1',
    token: TOKEN,
    WebSocket: BenchSocket as unknown as new (url: string) => WebSocketLike,
    heartbeat: { intervalMs: 0, timeoutMs: 0 },
  });
  let seen = 0;
  d.on('event', () => void (seen += 1));
  const started = d.start();
  await new Promise((r) => setImmediate(r));
  const socket = BenchSocket.last!;
  socket.open();
  socket.deliver('{"type":"auth.ok"}');
  await started;
  const rows: string[][] = [];
  for (const [name, text] of [
    ['message.new, 1 KB', BIG],
    ['relation.established, small', SMALL],
  ] as const) {
    const base = await measure('JSON.parse', () => JSON.parse(text), { batch: 100 });
    const parse = await measure('parseWsFrame', () => parseWsFrame(text), { batch: 100 });
    const full = await measure('dispatcher', () => socket.deliver(text), { batch: 100 });
    rows.push([name, fmt(base.opsPerSec), fmt(parse.opsPerSec), fmt(full.opsPerSec), fmt(full.meanUs, 2)]);
  }
  printTable(
    'In-process frame handling (frames/s)',
    ['frame', 'baseline JSON.parse', 'parseWsFrame', 'dispatcher → event', 'µs/frame'],
    rows,
  );
  if (seen === 0) throw new Error('no events seen');
  await d.close();
}

async function pushFrames(
  count: number,
  text: string,
  receive: (url: string, done: () => void) => Promise<() => Promise<void>>,
): Promise<number> {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise((r) => wss.once('listening', r));
  const url = `ws://127.0.0.1:${(wss.address() as AddressInfo).port}/ws`;
  let t0 = 0;
  wss.on('connection', (s) => {
    s.once('message', () => {
      s.send('{"type":"auth.ok"}');
      t0 = performance.now();
      for (let i = 0; i < count; i++) s.send(text);
    });
  });
  let finish!: () => void;
  const finished = new Promise<void>((r) => (finish = r));
  const stop = await receive(url, finish);
  await finished;
  const ms = performance.now() - t0;
  await stop();
  await new Promise<void>((r) => wss.close(() => r()));
  return (count / ms) * 1000;
}

async function loopback(): Promise<void> {
  const count = Number(process.env['BENCH_FRAMES'] ?? 50_000);
  const rows: string[][] = [];
  for (const [name, text] of [
    ['message.new, 1 KB', BIG],
    ['relation.established, small', SMALL],
  ] as const) {
    const bare = await pushFrames(count, text, async (url, done) => {
      const ws = new WebSocket(url);
      let n = 0;
      ws.on('open', () => ws.send(JSON.stringify({ type: 'auth', agent_id: 'a1', token: TOKEN })));
      ws.on('message', (data) => {
        JSON.parse(String(data));
        if (++n === count + 1) done();
      });
      return () => new Promise<void>((r) => (ws.once('close', () => r()), ws.close()));
    });
    const dispatched = await pushFrames(count, text, async (url, done) => {
      const d = createWsDispatcher({
        url,
        agentId: 'a1',
        token: TOKEN,
        WebSocket: WebSocket as WebSocketConstructor,
      });
      let n = 0;
      d.on('event', () => {
        if (++n === count) done();
      });
      void d.start();
      return () => d.close();
    });
    rows.push([name, fmt(bare), fmt(dispatched), fmt((dispatched / bare) * 100, 0) + ' %']);
  }
  printTable(
    `Loopback, ${fmt(count)} frames pushed to one client (frames/s)`,
    ['frame', 'baseline: bare ws + JSON.parse', 'dispatcher → event', 'relative'],
    rows,
  );
}

/** Entry point. */
export default async function (): Promise<void> {
  await inProcess();
  await loopback();
}
