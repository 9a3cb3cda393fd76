import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../packages/sdk/src/core/clock.js';
import { isServiceError, isTransportError } from '../../../packages/sdk/src/core/errors/guards.js';
import { WS_CLOSE_CODES } from '../../../packages/sdk/src/core/protocol/ws-close.js';
import {
  createWsDispatcher,
  type WsDispatcher,
  type WsDispatcherEventName,
  type WsDispatcherEvents,
  type WsDispatcherOptions,
} from '../../../packages/sdk/src/transport/ws/index.js';
import {
  acceptAuth,
  countingWebSocket,
  onFrame,
  stageWsServer,
  until,
  type StagedWsServer,
} from '../../helpers/transport-ws.js';

const AGENT = 'agent-7';
const TOKEN = 'hsk_' + 'Tz5k'.repeat(10);

let server: StagedWsServer;
let silent: StagedWsServer;
const running: WsDispatcher[] = [];

beforeAll(async () => {
  server = await stageWsServer();
  silent = await stageWsServer({ autoPong: false });
});
afterAll(async () => {
  await Promise.all([server.close(), silent.close()]);
});
afterEach(async () => {
  await Promise.all(running.splice(0).map((d) => d.close()));
  server.connections.length = 0;
  silent.connections.length = 0;
  server.onConnection = () => undefined;
  silent.onConnection = () => undefined;
});

interface Recorder {
  d: WsDispatcher;
  clock: ManualClock;
  seen: { [E in WsDispatcherEventName]: WsDispatcherEvents[E][] };
  next<E extends WsDispatcherEventName>(event: E, count?: number): Promise<WsDispatcherEvents[E]>;
}

function dispatcher(options: Partial<WsDispatcherOptions> & { target?: StagedWsServer } = {}): Recorder {
  const clock = new ManualClock(0);
  const { target = server, ...rest } = options;
  const auth = rest.credentials === undefined ? { token: TOKEN } : {};
  const d = createWsDispatcher({
    url: target.url,
    agentId: AGENT,
    ...auth,
    clock,
    random: () => 0.5,
    ...rest,
  });
  running.push(d);
  const names: WsDispatcherEventName[] = [
    'open',
    'event',
    'close',
    'reconnecting',
    'fatal',
    'protocolError',
    'sessionInvalidated',
    'authExpiring',
    'renewed',
    'authError',
    'unknownFrame',
    'state',
  ];
  const seen = Object.fromEntries(names.map((n) => [n, []])) as unknown as Recorder['seen'];
  for (const n of names) d.on(n, (...args: unknown[]) => (seen[n] as unknown[][]).push(args));
  const cursor = new Map<WsDispatcherEventName, number>();
  return {
    d,
    clock,
    seen,
    async next(event, count) {
      const want = count ?? (cursor.get(event) ?? 0) + 1;
      cursor.set(event, want);
      await until(() => seen[event].length >= want, `${event} #${want}`);
      return seen[event][want - 1]!;
    },
  };
}

describe('WebSocket dispatcher against a real ws server', () => {
  it('sends the auth frame first, with no clock time passing, and never puts the token in the upgrade', async () => {
    server.onConnection = (c) => acceptAuth(c);
    const r = dispatcher();
    await r.d.start();
    const conn = server.connections[0]!;
    expect(JSON.parse(conn.frames[0]!)).toEqual({ type: 'auth', agent_id: AGENT, token: TOKEN, ack: true });
    expect(r.clock.now()).toBe(0);
    expect(conn.url).toBe('/ws');
    for (const [name, value] of Object.entries(conn.headers)) {
      expect(`${name}: ${String(value)}`).not.toContain(TOKEN);
      expect(String(value)).not.toContain('hsk_');
    }
    expect(r.d.state).toBe('open');
    expect(r.seen.state.map(([s]) => `${s.from}>${s.to}`)).toEqual([
      'idle>connecting',
      'connecting>authenticating',
      'authenticating>open',
    ]);
  });

  it('a server that never answers auth: client-side timeout, then reconnect after a jittered back-off', async () => {
    const r = dispatcher({ authTimeoutMs: 8000, backoff: { baseMs: 1000, capMs: 30_000 } });
    void r.d.start();
    const first = await server.connectionCount(1);
    await first.frame(0);
    r.clock.advance(7999);
    expect(r.seen.close).toHaveLength(0);
    r.clock.advance(1);
    const [info] = await r.next('reconnecting');
    expect(info).toEqual({ attempt: 1, delayMs: 500 });
    expect(r.seen.close[0]![0].code).toBe(1006);
    expect(r.d.state).toBe('waiting');
    r.clock.advance(499);
    expect(server.connections).toHaveLength(1);
    r.clock.advance(1);
    const second = await server.connectionCount(2);
    await second.frame(0);
    expect(r.seen.fatal).toHaveLength(0);
  });

  it('auth.error invalid_token: fatal, start() rejects, and no reconnect over a long virtual window', async () => {
    server.onConnection = (c) =>
      onFrame(c, 0, () => {
        c.send({ type: 'auth.error', reason: 'invalid_token' });
        c.socket.close(WS_CLOSE_CODES.AUTH_FAILED, 'invalid_token');
      });
    const r = dispatcher();
    const err = await r.d.start().catch((e: unknown) => e);
    expect(isServiceError(err, 'AGENT_TOKEN_INVALID')).toBe(true);
    expect(String((err as Error).message)).not.toContain(TOKEN);
    const [fatalErr, info] = await r.next('fatal');
    expect(fatalErr).toBe(err);
    expect(info).toEqual({
      closeCode: 4001,
      closeReason: 'invalid_token',
      authError: 'invalid_token',
      sessionInvalidated: false,
    });
    expect(r.seen.authError).toEqual([[{ reason: 'invalid_token', terminal: true, duringAuth: true }]]);
    for (let i = 0; i < 60; i++) r.clock.advance(60_000);
    expect(server.connections).toHaveLength(1);
    expect(r.seen.reconnecting).toHaveLength(0);
    expect(r.clock.pendingTimers).toBe(0);
    expect(r.d.state).toBe('fatal');
  });

  it.each([
    [WS_CLOSE_CODES.TOKEN_REVOKED, 'AGENT_TOKEN_INVALID'],
    [WS_CLOSE_CODES.AGENT_SUSPENDED, 'AGENT_SUSPENDED'],
    [WS_CLOSE_CODES.AGENT_BANNED, 'AGENT_BANNED'],
    [WS_CLOSE_CODES.REPLACED, 'TRANSPORT_REPLACED'],
    [WS_CLOSE_CODES.WEBHOOK_MODE, 'TRANSPORT_CLOSED'],
  ])('terminal close code %i → fatal %s, no reconnect', async (code, errorCode) => {
    server.onConnection = (c) => acceptAuth(c, () => c.socket.close(code, 'bye'));
    const r = dispatcher();
    await r.d.start();
    const [err, info] = await r.next('fatal');
    expect(err.code).toBe(errorCode);
    expect(info.closeCode).toBe(code);
    for (let i = 0; i < 10; i++) r.clock.advance(60_000);
    expect(server.connections).toHaveLength(1);
    expect(r.seen.reconnecting).toHaveLength(0);
  });

  it('normal closes and restarts reconnect with delays in [0, ceiling] and a growing ceiling', async () => {
    const closes = [
      WS_CLOSE_CODES.NORMAL,
      WS_CLOSE_CODES.GOING_AWAY,
      WS_CLOSE_CODES.SERVICE_RESTART,
      1011,
      4999,
      1000,
    ];
    server.onConnection = (c) => acceptAuth(c, () => c.socket.close(closes[c.index] ?? 1000, 'restart'));
    const r = dispatcher({ random: () => 0.999, backoff: { baseMs: 100, capMs: 1000 } });
    await r.d.start();
    const delays: number[] = [];
    for (let n = 1; n <= closes.length; n++) {
      const [info] = await r.next('reconnecting', n);
      expect(info.attempt).toBe(n);
      expect(info.delayMs).toBeGreaterThanOrEqual(0);
      expect(info.delayMs).toBeLessThanOrEqual(Math.min(1000, 100 * 2 ** (n - 1)));
      delays.push(info.delayMs);
      r.clock.advance(info.delayMs);
      await r.next('open', n + 1);
    }
    expect(delays).toEqual([99, 199, 399, 799, 999, 999]);
    expect(server.connections.every((c) => c.alone)).toBe(true);
    expect(r.seen.fatal).toHaveLength(0);
  });

  it('keeps exactly one socket at a time under rapid close/reconnect', async () => {
    server.onConnection = (c) => {
      if (c.index % 3 === 0) c.socket.close(1012, 'now');
      else acceptAuth(c, () => c.socket.close(1001, 'again'));
    };
    const counting = countingWebSocket();
    const r = dispatcher({ WebSocket: counting.ctor, random: () => 0 });
    r.d.on('reconnecting', ({ delayMs }) => setImmediate(() => r.clock.advance(delayMs)));
    void r.d.start();
    await server.connectionCount(30);
    await r.d.close();
    expect(counting.maxLive()).toBe(1);
    expect(counting.live()).toBe(0);
    expect(server.connections.every((c) => c.alone)).toBe(true);
    expect(r.d.state).toBe('closed');
  });

  it('the heartbeat pings and declares a silent server dead, then reconnects', async () => {
    silent.onConnection = (c) => acceptAuth(c);
    const r = dispatcher({ target: silent, heartbeat: { intervalMs: 25_000, timeoutMs: 60_000 } });
    await r.d.start();
    const first = silent.connections[0]!;
    r.clock.advance(25_000);
    await until(() => first.pings === 1, 'first ping');
    r.clock.advance(25_000);
    await until(() => first.pings === 2, 'second ping');
    expect(r.seen.close).toHaveLength(0);
    r.clock.advance(10_000);
    const [info] = await r.next('reconnecting');
    expect(r.seen.close[0]![0].code).toBe(1006);
    r.clock.advance(info.delayMs);
    await r.next('open', 2);
    expect(silent.connections).toHaveLength(2);
  });

  it('session.invalidated stops the dispatcher for good', async () => {
    server.onConnection = (c) =>
      acceptAuth(c, () => {
        c.send({ type: 'session.invalidated' });
        c.socket.close(WS_CLOSE_CODES.SESSION_INVALIDATED, 'session_invalidated');
      });
    const r = dispatcher();
    await r.d.start();
    const [err, info] = await r.next('fatal');
    expect(r.seen.sessionInvalidated).toHaveLength(1);
    expect(isTransportError(err) && err.code === 'TRANSPORT_CLOSED').toBe(true);
    expect(info.sessionInvalidated).toBe(true);
    for (let i = 0; i < 10; i++) r.clock.advance(60_000);
    expect(server.connections).toHaveLength(1);
  });

  it('malformed frames raise protocolError and the connection stays up', async () => {
    server.onConnection = (c) =>
      acceptAuth(c, () => {
        for (const bad of [
          'not json',
          '[1]',
          '{"type":""}',
          '{"type":"message.new","wire_envelope":5}',
          '{"type":"auth.error"}',
        ]) {
          c.send(bad);
        }
        c.send(Buffer.from([1, 2, 3]));
        c.send({ type: 'something.new', x: 1 });
        c.send({
          type: 'reaction.update',
          payload: { emoji: 'ok' },
          delivery_id: '0190a7e4-1f2b-7c3d-8e4f-5a6b7c8d9e0f',
        });
      });
    const r = dispatcher();
    await r.d.start();
    const [frame] = await r.next('event');
    expect(frame).toMatchObject({
      type: 'reaction.update',
      delivery_id: '0190a7e4-1f2b-7c3d-8e4f-5a6b7c8d9e0f',
    });
    expect(r.seen.protocolError).toHaveLength(6);
    expect(r.seen.protocolError.map(([e]) => e.code)).toEqual([
      'VALIDATION_ERROR',
      'VALIDATION_ERROR',
      'VALIDATION_ERROR',
      'VALIDATION_ERROR',
      'VALIDATION_ERROR',
      'TRANSPORT_PROTOCOL',
    ]);
    expect(r.seen.unknownFrame).toEqual([
      [{ type: 'something.new', frame: { type: 'something.new', x: 1 } }],
    ]);
    expect(r.d.state).toBe('open');
    expect(r.seen.close).toHaveLength(0);
  });

  it('renew() sends auth.renew; auth.expiring and the renewal answer are surfaced', async () => {
    server.onConnection = (c) =>
      acceptAuth(c, () => {
        c.send({ type: 'auth.expiring', expires_in_seconds: 30 });
        onFrame(c, 1, () => c.send({ type: 'auth.ok' }));
      });
    const r = dispatcher();
    expect(() => r.d.renew('eyJa.b.c')).toThrow(/open connection/);
    await r.d.start();
    const [expiring] = await r.next('authExpiring');
    expect(expiring).toEqual({ expiresInSeconds: 30 });
    r.d.renew('eyJnew.token.value');
    await r.next('renewed');
    expect(JSON.parse(server.connections[0]!.frames[1]!)).toEqual({
      type: 'auth.renew',
      access_token: 'eyJnew.token.value',
    });
  });

  it('asks the credentials provider for each connection', async () => {
    const tokens = ['hsk_' + 'a'.repeat(40), 'hsk_' + 'b'.repeat(40)];
    let calls = 0;
    server.onConnection = (c) =>
      acceptAuth(c, () => (c.index === 0 ? c.socket.close(1001, 'restart') : undefined));
    const r = dispatcher({ credentials: () => tokens[calls++]! });
    await r.d.start();
    const [info] = await r.next('reconnecting');
    r.clock.advance(info.delayMs);
    await r.next('open', 2);
    expect(server.connections.map((c) => (JSON.parse(c.frames[0]!) as { token: string }).token)).toEqual(
      tokens,
    );
  });

  it('a non-terminal auth.error reason reconnects', async () => {
    server.onConnection = (c) =>
      onFrame(c, 0, () => {
        if (c.index === 0) {
          c.send({ type: 'auth.error', reason: 'rate_limited' });
          c.socket.close(WS_CLOSE_CODES.AUTH_FAILED, 'rate_limited');
        } else {
          c.send({ type: 'auth.ok' });
        }
      });
    const r = dispatcher();
    const started = r.d.start();
    const [info] = await r.next('reconnecting');
    r.clock.advance(info.delayMs);
    await started;
    expect(r.seen.authError).toEqual([[{ reason: 'rate_limited', terminal: false, duringAuth: true }]]);
    expect(server.connections).toHaveLength(2);
  });

  it('graceful close resolves after the socket is gone, with code 1000 and no reconnect', async () => {
    server.onConnection = (c) => acceptAuth(c);
    const r = dispatcher();
    await r.d.start();
    await r.d.close();
    expect(r.d.state).toBe('closed');
    await until(() => server.connections[0]!.closed !== undefined, 'server saw the close');
    expect(server.connections[0]!.closed?.code).toBe(1000);
    r.clock.advance(600_000);
    expect(r.seen.reconnecting).toHaveLength(0);
    expect(r.clock.pendingTimers).toBe(0);
    await expect(r.d.close()).resolves.toBeUndefined();
  });

  it('close() while waiting for the back-off stops at once; start() before open rejects', async () => {
    server.onConnection = (c) => c.socket.close(1001, 'busy');
    const r = dispatcher();
    const started = r.d.start();
    await r.next('reconnecting');
    await r.d.close();
    await expect(started).rejects.toMatchObject({ code: 'TRANSPORT_CLOSED' });
    expect(r.d.state).toBe('closed');
    expect(server.connections).toHaveLength(1);
  });

  it('a refused TCP connection is retried with back-off', async () => {
    const gone = await stageWsServer();
    const url = gone.url;
    await gone.close();
    const r = dispatcher({ url });
    void r.d.start();
    const [info] = await r.next('reconnecting');
    expect(info.attempt).toBe(1);
    expect(r.seen.close[0]![0].code).toBe(1006);
  });
});
