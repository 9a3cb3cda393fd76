/**
 * The user WebSocket with an in-memory socket and a virtual clock: the auth
 * frame, frames passed on, renewal, and what each end of a connection leads
 * to (refresh and reconnect, back-off, or stop).
 */
import { describe, expect, it } from 'vitest';
import { UserSocket } from '../../../packages/sdk/src/client/user-socket.js';
import { ManualClock } from '../../../packages/sdk/src/core/clock.js';
import { silentLogger } from '../../../packages/sdk/src/core/logger.js';
import { fakeSocketClass } from '../../helpers/transport-fake-socket.js';

const flush = () => new Promise((r) => setTimeout(r, 0));

function setup(options: { refreshFails?: boolean; acks?: boolean } = {}) {
  const clock = new ManualClock(Date.parse('2026-03-01T12:00:00.000Z'));
  const { ctor, sockets } = fakeSocketClass();
  let token = 'token-1';
  let refreshes = 0;
  const socket = new UserSocket({
    url: 'ws://127.0.0.1:1/ws',
    accessToken: () => token,
    refresh: async () => {
      refreshes += 1;
      if (options.refreshFails === true) throw new Error('refresh refused');
      token = `token-${refreshes + 1}`;
    },
    WebSocket: ctor,
    clock,
    logger: silentLogger,
    backoff: { baseMs: 1000, capMs: 1000 },
    authTimeoutMs: 10_000,
    acks: options.acks === true,
  });
  const events: string[] = [];
  for (const e of ['open', 'close', 'reconnecting', 'sessionInvalidated', 'fatal', 'renewed'] as const) {
    socket.on(e, () => events.push(e));
  }
  return { clock, sockets, socket, events, refreshes: () => refreshes, setToken: (t: string) => (token = t) };
}

async function authenticate(s: ReturnType<typeof setup>, index: number): Promise<void> {
  for (let i = 0; i < 20 && s.sockets.length <= index; i++) await flush();
  const sock = s.sockets[index]!;
  sock.open();
  sock.message({ type: 'auth.ok' });
  await flush();
}

describe('UserSocket', () => {
  it('authenticates with the access token in the first frame and passes other frames on', async () => {
    const s = setup();
    const frames: unknown[] = [];
    s.socket.on('frame', (f) => frames.push(f));
    const started = s.socket.start();
    await authenticate(s, 0);
    await started;
    expect(s.sockets[0]!.frames()[0]).toEqual({ type: 'auth', access_token: 'token-1' });
    expect(s.sockets[0]!.url).toBe('ws://127.0.0.1:1/ws');
    s.sockets[0]!.message({ type: 'message.new', wire_envelope: 'x' });
    s.sockets[0]!.message('not json');
    expect(frames).toEqual([{ type: 'message.new', wire_envelope: 'x' }]);
    await s.socket.close();
    expect(s.events).toEqual(['open', 'close']);
  });

  it('with acks: asks in auth, reads the terms of auth.ok, and batches handled ids into one ack frame', async () => {
    const s = setup({ acks: true });
    const opened: unknown[] = [];
    s.socket.on('open', (info) => opened.push(info));
    const started = s.socket.start();
    for (let i = 0; i < 20 && s.sockets.length === 0; i++) await flush();
    s.sockets[0]!.open();
    s.sockets[0]!.message({ type: 'auth.ok', ack: { window: 256, timeout_ms: 30_000 } });
    await started;
    expect(s.sockets[0]!.frames()[0]).toEqual({ type: 'auth', access_token: 'token-1', ack: true });
    expect(opened).toEqual([{ attempt: 1, acks: true }]);
    expect(s.socket.acks).toBe(true);
    s.socket.ack('41');
    s.socket.ack('42');
    expect(s.sockets[0]!.frames()).toHaveLength(1);
    s.clock.advance(10);
    expect(s.sockets[0]!.frames().slice(1)).toEqual([{ type: 'ack', delivery_ids: ['41', '42'] }]);
    await s.socket.close();
  });

  it('with acks asked but a plain auth.ok: no ack frame is ever sent', async () => {
    const s = setup({ acks: true });
    const started = s.socket.start();
    await authenticate(s, 0);
    await started;
    expect(s.socket.acks).toBe(false);
    s.socket.ack('7');
    s.clock.advance(10);
    expect(s.sockets[0]!.frames()).toEqual([{ type: 'auth', access_token: 'token-1', ack: true }]);
    await s.socket.close();
  });

  it('refreshes on auth.expiring and renews with the new token', async () => {
    const s = setup();
    const started = s.socket.start();
    await authenticate(s, 0);
    await started;
    s.socket.on('renewed', () => undefined);
    s.sockets[0]!.message({ type: 'auth.expiring', expires_in_seconds: 60 });
    await flush();
    expect(s.refreshes()).toBe(1);
    s.socket.renew('token-2'); // what the client does when the session gets its new token
    expect(s.sockets[0]!.frames()[1]).toEqual({ type: 'auth.renew', access_token: 'token-2' });
    s.sockets[0]!.message({ type: 'auth.ok' });
    expect(s.events).toContain('renewed');
    await s.socket.close();
  });

  it('after token_expired (4003) refreshes and reconnects with the new token at once', async () => {
    const s = setup();
    const started = s.socket.start();
    await authenticate(s, 0);
    await started;
    s.sockets[0]!.message({ type: 'auth.error', reason: 'token_expired' });
    s.sockets[0]!.serverClose(4003);
    await authenticate(s, 1);
    expect(s.refreshes()).toBe(1);
    expect(s.sockets[1]!.frames()[0]).toEqual({ type: 'auth', access_token: 'token-2' });
    expect(s.events).toEqual(['open', 'close', 'open']);
    await s.socket.close();
  });

  it('reconnects after back-off when the connection is lost', async () => {
    const s = setup();
    const started = s.socket.start();
    await authenticate(s, 0);
    await started;
    s.sockets[0]!.serverClose(1006);
    await flush();
    expect(s.events).toContain('reconnecting');
    expect(s.sockets).toHaveLength(1);
    s.clock.advance(1000);
    await authenticate(s, 1);
    expect(s.sockets).toHaveLength(2);
    await s.socket.close();
  });

  it('stops on session.invalidated', async () => {
    const s = setup();
    const started = s.socket.start();
    await authenticate(s, 0);
    await started;
    s.sockets[0]!.message({ type: 'session.invalidated', device_id: 'd1' });
    s.sockets[0]!.serverClose(4004);
    await flush();
    expect(s.events).toEqual(['open', 'close', 'sessionInvalidated', 'fatal']);
    s.clock.advance(60_000);
    await flush();
    expect(s.sockets).toHaveLength(1);
  });

  it('refreshes once after invalid_token, then gives up; a failed refresh is fatal', async () => {
    const s = setup();
    const started = s.socket.start();
    for (let i = 0; i < 20 && s.sockets.length === 0; i++) await flush();
    s.sockets[0]!.open();
    s.sockets[0]!.message({ type: 'auth.error', reason: 'invalid_token' });
    s.sockets[0]!.serverClose(4001);
    for (let i = 0; i < 20 && s.sockets.length < 2; i++) await flush();
    s.sockets[1]!.open();
    s.sockets[1]!.message({ type: 'auth.error', reason: 'invalid_token' });
    s.sockets[1]!.serverClose(4001);
    await expect(started).rejects.toMatchObject({ code: 'TRANSPORT_CLOSED' });
    expect(s.refreshes()).toBe(1);

    const f = setup({ refreshFails: true });
    const failing = f.socket.start();
    for (let i = 0; i < 20 && f.sockets.length === 0; i++) await flush();
    f.sockets[0]!.open();
    f.sockets[0]!.message({ type: 'auth.error', reason: 'token_expired' });
    f.sockets[0]!.serverClose(4003);
    await expect(failing).rejects.toBeDefined();
    expect(f.events).toContain('fatal');
  });
});
