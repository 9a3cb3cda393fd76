/**
 * Read pausing (flow control) on the dispatcher's connection, with a fake
 * socket that has `pause()` / `resume()` like `ws`, and the heartbeat's
 * suspension while paused.
 */
import { DEFAULT_HEARTBEAT } from '../../../../packages/sdk/src/transport/ws/heartbeat.js';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../../packages/sdk/src/core/clock.js';
import {
  createWsDispatcher,
  type WebSocketConstructor,
  type WebSocketLike,
} from '../../../../packages/sdk/src/transport/ws/index.js';
import { fakeSocketClass, type FakeSocket } from '../../../helpers/transport-fake-socket.js';

const TOKEN = 'hsk_' + 'Fk3e'.repeat(10);

type Pausable = FakeSocket & { calls: string[] };

async function flush(): Promise<void> {
  for (let i = 0; i < 10; i++) await Promise.resolve();
}

function setup(pausable = true) {
  const clock = new ManualClock(0);
  const fake = fakeSocketClass();
  const sockets: Pausable[] = [];
  const ctor = function (url: string): WebSocketLike {
    const s = new fake.ctor(url) as unknown as Pausable;
    s.calls = [];
    if (pausable) {
      Object.assign(s, {
        pause: () => s.calls.push('pause'),
        resume: () => s.calls.push('resume'),
      });
    }
    sockets.push(s);
    return s as unknown as WebSocketLike;
  } as unknown as WebSocketConstructor;
  const d = createWsDispatcher({
    url: 'wss://api.test/ws',
    agentId: 'a1',
    token: TOKEN,
    WebSocket: ctor,
    clock,
  });
  const closes: number[] = [];
  d.on('close', ({ code }) => closes.push(code));
  return { clock, d, sockets, closes };
}

async function open(s: ReturnType<typeof setup>, index: number, auth = true): Promise<Pausable> {
  await flush();
  const sock = s.sockets[index]!;
  sock.open();
  if (auth) sock.message({ type: 'auth.ok' });
  return sock;
}

describe('read pausing on the connection', () => {
  it('never pauses before auth.ok; a wish made earlier applies at auth.ok', async () => {
    const s = setup();
    void s.d.start();
    const sock = await open(s, 0, false);
    expect(s.d.setReadPaused(true)).toBe(true);
    expect(sock.calls).toEqual([]);
    expect(s.d.readPaused).toBe(false);
    sock.message({ type: 'auth.ok' });
    expect(sock.calls).toEqual(['pause']);
    expect(s.d.readPaused).toBe(true);
    s.d.setReadPaused(false);
    expect(sock.calls).toEqual(['pause', 'resume']);
    expect(s.d.readPaused).toBe(false);
    await s.d.close();
  });

  it('repeated wishes do not repeat pause() or resume()', async () => {
    const s = setup();
    void s.d.start();
    const sock = await open(s, 0);
    s.d.setReadPaused(true);
    s.d.setReadPaused(true);
    s.d.setReadPaused(false);
    s.d.setReadPaused(false);
    expect(sock.calls).toEqual(['pause', 'resume']);
    await s.d.close();
  });

  it('while paused the dead check is suspended; on resume it restarts from zero', async () => {
    const s = setup();
    void s.d.start();
    const sock = await open(s, 0);
    s.d.setReadPaused(true);
    s.clock.advance(10 * 60_000);
    await flush();
    expect(sock.terminated).toBe(false);
    expect(s.d.state).toBe('open');
    s.d.setReadPaused(false);
    s.clock.advance(DEFAULT_HEARTBEAT.timeoutMs - 1);
    await flush();
    expect(sock.terminated).toBe(false);
    s.clock.advance(1);
    await flush();
    expect(sock.terminated).toBe(true);
    await s.d.close();
  });

  it('close() while paused resumes reading so the close handshake completes', async () => {
    const s = setup();
    void s.d.start();
    const sock = await open(s, 0);
    s.d.setReadPaused(true);
    await s.d.close();
    expect(sock.calls).toEqual(['pause', 'resume']);
    expect(sock.closeCalls).toEqual([{ code: 1000, reason: 'client_close' }]);
    expect(s.d.state).toBe('closed');
  });

  it('after a reconnect the new socket reads during auth and pauses again at auth.ok if still wanted', async () => {
    const s = setup();
    void s.d.start();
    const first = await open(s, 0);
    s.d.setReadPaused(true);
    first.serverClose(1011);
    await flush();
    s.clock.advance(30_000);
    const second = await open(s, 1, false);
    expect(second.calls).toEqual([]);
    second.message({ type: 'auth.ok' });
    expect(second.calls).toEqual(['pause']);
    s.d.setReadPaused(false);
    expect(second.calls).toEqual(['pause', 'resume']);
    await s.d.close();
  });

  it('a socket without pause() reports no support and keeps reading', async () => {
    const s = setup(false);
    void s.d.start();
    await open(s, 0);
    expect(s.d.setReadPaused(true)).toBe(false);
    expect(s.d.readPaused).toBe(false);
    await s.d.close();
  });
});
