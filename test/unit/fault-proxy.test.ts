/**
 * The chaos tests' TCP fault proxy against a plain echo server: exact byte
 * counts each way, resets seen as ECONNRESET, partitions dropping exactly
 * the bytes sent in the window, latency and trickling keeping order,
 * refusal. Windows are ended by count (`heal()`), never by the clock.
 */
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFaultProxy, type FaultProxy } from '../helpers/fault-proxy.js';

let echo: Server;
let proxy: FaultProxy;
let echoed = 0;

beforeEach(async () => {
  echoed = 0;
  echo = createServer((s) => {
    s.on('data', (chunk: Buffer) => {
      echoed += chunk.length;
      s.write(chunk);
    });
    s.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
  proxy = await startFaultProxy({
    target: { host: '127.0.0.1', port: (echo.address() as AddressInfo).port },
  });
});

afterEach(async () => {
  await proxy.close();
  await new Promise<void>((resolve) => echo.close(() => resolve()));
});

/** A client of the proxy that keeps what it reads and its last error. */
async function client(): Promise<{ socket: Socket; received: () => Buffer; error: () => Error | undefined }> {
  const socket = connect({ host: '127.0.0.1', port: proxy.port });
  const chunks: Buffer[] = [];
  let error: Error | undefined;
  socket.on('data', (c: Buffer) => chunks.push(c));
  socket.on('error', (err) => void (error = err));
  await new Promise<void>((resolve) => socket.once('connect', resolve));
  return { socket, received: () => Buffer.concat(chunks), error: () => error };
}

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 2_000; i++) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('fault proxy', () => {
  it('forwards both ways and counts bytes exactly', async () => {
    const c = await client();
    c.socket.write('hello');
    c.socket.write(Buffer.alloc(100_000, 7));
    await until(() => c.received().length === 100_005, 'the echo');
    expect(c.received().subarray(0, 5).toString()).toBe('hello');
    expect(proxy.stats()).toMatchObject({
      connections: 1,
      open: 1,
      bytesUpstream: 100_005,
      bytesDownstream: 100_005,
      droppedUpstream: 0,
      droppedDownstream: 0,
    });
    c.socket.end();
    await until(() => proxy.stats().open === 0, 'the pair to close');
  });

  it('reset() destroys every pair with RST: the client sees ECONNRESET', async () => {
    const a = await client();
    const b = await client();
    a.socket.write('x');
    await until(() => a.received().length === 1, 'the echo');
    expect(proxy.reset()).toBe(2);
    await until(() => a.socket.destroyed && b.socket.destroyed, 'both clients to close');
    expect((a.error() as NodeJS.ErrnoException | undefined)?.code).toBe('ECONNRESET');
    expect((b.error() as NodeJS.ErrnoException | undefined)?.code).toBe('ECONNRESET');
    expect(proxy.stats()).toMatchObject({ connections: 2, open: 0, resets: 2 });
  });

  it('an upstream partition drops exactly the bytes sent in the window', async () => {
    const c = await client();
    c.socket.write('0123456789');
    await until(() => c.received().length === 10, 'the first echo');
    const window = proxy.partition('upstream', Infinity);
    c.socket.write('lost!!!');
    await until(() => proxy.stats().droppedUpstream === 7, 'the dropped bytes');
    proxy.heal();
    await window;
    c.socket.write('after');
    await until(() => c.received().length === 15, 'the second echo');
    expect(c.received().toString()).toBe('0123456789after');
    expect(echoed).toBe(15);
    expect(proxy.stats()).toMatchObject({ bytesUpstream: 15, bytesDownstream: 15, droppedUpstream: 7 });
  });

  it('a downstream partition with resetAfter drops the answers, then resets', async () => {
    const c = await client();
    const window = proxy.partition('downstream', Infinity, { resetAfter: true });
    c.socket.write('abcd');
    await until(() => proxy.stats().droppedDownstream === 4, 'the dropped echo');
    expect(echoed).toBe(4);
    proxy.heal();
    await window;
    await until(() => c.socket.destroyed, 'the client to close');
    expect((c.error() as NodeJS.ErrnoException | undefined)?.code).toBe('ECONNRESET');
    expect(c.received().length).toBe(0);
    expect(proxy.stats()).toMatchObject({ bytesUpstream: 4, bytesDownstream: 0, resets: 1, open: 0 });
  });

  it('a timed partition ends by itself', async () => {
    const c = await client();
    await proxy.partition('both', 20);
    c.socket.write('ok');
    await until(() => c.received().length === 2, 'the echo');
    expect(proxy.stats()).toMatchObject({ droppedUpstream: 0, droppedDownstream: 0, resets: 0 });
  });

  it('delay and trickle keep the order of every byte', async () => {
    proxy.delay(5);
    proxy.trickle(3, 1);
    const c = await client();
    const text = Array.from({ length: 50 }, (_, i) => `<${i}>`).join('');
    for (let i = 0; i < text.length; i += 7) c.socket.write(text.slice(i, i + 7));
    await until(() => c.received().length === text.length, 'the echo');
    expect(c.received().toString()).toBe(text);
    proxy.delay(0);
    proxy.trickle(0, 0);
    c.socket.write('fast');
    await until(() => c.received().length === text.length + 4, 'the second echo');
    expect(proxy.stats().bytesDownstream).toBe(text.length + 4);
  });

  it('refuse(true) closes new connections at once; refuse(false) lets them through', async () => {
    proxy.refuse(true);
    const refused = connect({ host: '127.0.0.1', port: proxy.port });
    const err = await new Promise<NodeJS.ErrnoException | undefined>((resolve) => {
      refused.on('error', (e) => resolve(e));
      refused.on('close', () => resolve(undefined));
    });
    expect(err?.code).toBe('ECONNRESET');
    expect(proxy.stats()).toMatchObject({ connections: 0, refused: 1 });
    proxy.refuse(false);
    const c = await client();
    c.socket.write('in');
    await until(() => c.received().length === 2, 'the echo');
    expect(proxy.stats()).toMatchObject({ connections: 1, refused: 1 });
  });
});
