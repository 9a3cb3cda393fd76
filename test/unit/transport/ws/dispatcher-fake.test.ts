import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../../packages/sdk/src/core/clock.js';
import { isAmsError } from '../../../../packages/sdk/src/core/errors/guards.js';
import { ServiceError } from '../../../../packages/sdk/src/core/errors/service-error.js';
import {
  createWsDispatcher,
  type WsDispatcherOptions,
} from '../../../../packages/sdk/src/transport/ws/index.js';
import { fakeSocketClass, type FakeSocketOptions } from '../../../helpers/transport-fake-socket.js';

const TOKEN = 'hsk_' + 'Fk3e'.repeat(10);

async function flush(): Promise<void> {
  for (let i = 0; i < 10; i++) await Promise.resolve();
}

function setup(extra: Partial<WsDispatcherOptions> = {}, socket: FakeSocketOptions = {}) {
  const clock = new ManualClock(0);
  const fake = fakeSocketClass(socket);
  const d = createWsDispatcher({
    url: 'wss://api.test/ws',
    agentId: 'a1',
    ...(extra.credentials === undefined ? { token: TOKEN } : {}),
    WebSocket: fake.ctor,
    clock,
    random: () => 0.5,
    ...extra,
  });
  const log: string[] = [];
  d.on('state', ({ to }) => log.push(to))
    .on('reconnecting', ({ attempt, delayMs }) => log.push(`reconnecting:${attempt}:${delayMs}`))
    .on('fatal', (e) => log.push(`fatal:${e.code}`))
    .on('close', ({ code }) => log.push(`close:${code}`));
  return { clock, d, sockets: fake.sockets, log };
}

async function opened(s: ReturnType<typeof setup>, index = 0): Promise<void> {
  await flush();
  const sock = s.sockets[index]!;
  sock.open();
  sock.message({ type: 'auth.ok' });
}

describe('dispatcher with a fake socket', () => {
  it('a connect that never completes is cut after connectTimeoutMs and retried', async () => {
    const s = setup({ connectTimeoutMs: 3000 });
    void s.d.start();
    await flush();
    expect(s.sockets).toHaveLength(1);
    s.clock.advance(3000);
    await flush();
    expect(s.sockets[0]!.terminated).toBe(true);
    expect(s.log).toContain('reconnecting:1:500');
    s.clock.advance(500);
    await flush();
    expect(s.sockets).toHaveLength(2);
  });

  it('a socket whose close never comes is abandoned after closeTimeoutMs; the next one waits for it', async () => {
    const s = setup({ closeTimeoutMs: 2000 }, { wsExtras: false, closeCompletes: false });
    void s.d.start();
    await opened(s);
    s.sockets[0]!.message({ type: 'session.invalidated' });
    await flush();
    expect(s.sockets[0]!.closeCalls).toEqual([{ code: 1000, reason: 'session_invalidated' }]);
    expect(s.d.state).toBe('open');
    s.clock.advance(2000);
    await flush();
    expect(s.d.state).toBe('fatal');
    expect(s.sockets).toHaveLength(1);
  });

  it('without ws extras: no heartbeat, and a stuck auth is ended with close()', async () => {
    const s = setup(
      { heartbeat: { intervalMs: 1000, timeoutMs: 5000 }, authTimeoutMs: 8000 },
      { wsExtras: false },
    );
    void s.d.start();
    await opened(s);
    s.clock.advance(60_000);
    await flush();
    expect(s.d.state).toBe('open');
    expect(s.sockets[0]!.closeCalls).toEqual([]);
    await s.d.close();

    const t = setup({ authTimeoutMs: 8000 }, { wsExtras: false });
    void t.d.start();
    await flush();
    t.sockets[0]!.open();
    t.clock.advance(8000);
    await flush();
    expect(t.sockets[0]!.closeCalls).toEqual([{ code: 1000, reason: 'auth_timeout' }]);
    expect(t.log).toContain('reconnecting:1:500');
  });

  it('a constructor that throws counts as a failed attempt', async () => {
    const s = setup({}, { throwOnCreate: true });
    void s.d.start();
    await flush();
    expect(s.log).toEqual(['connecting', 'close:1006', 'waiting', 'reconnecting:1:500']);
  });

  it('a failing credentials provider backs off; a terminal one is fatal', async () => {
    let calls = 0;
    const s = setup({
      credentials: () => {
        calls += 1;
        if (calls === 1) throw new Error('vault unreachable');
        throw new ServiceError({ code: 'AGENT_TOKEN_INVALID', status: 401, message: 'gone' });
      },
    });
    const started = s.d.start();
    await flush();
    expect(s.log).toContain('reconnecting:1:500');
    s.clock.advance(500);
    await flush();
    await expect(started).rejects.toMatchObject({ code: 'AGENT_TOKEN_INVALID' });
    expect(s.d.state).toBe('fatal');
    expect(s.sockets).toHaveLength(0);
  });

  it('frames before auth.ok are dropped as protocol errors', async () => {
    const s = setup();
    const errors: string[] = [];
    const events: string[] = [];
    s.d.on('protocolError', (e) => errors.push(e.code)).on('event', (f) => events.push(f.type));
    void s.d.start();
    await flush();
    s.sockets[0]!.open();
    s.sockets[0]!.message({ type: 'reaction.update', payload: {} });
    s.sockets[0]!.message({ type: 'auth.ok' });
    s.sockets[0]!.message({ type: 'reaction.update', payload: {} });
    expect(errors).toEqual(['TRANSPORT_PROTOCOL']);
    expect(events).toEqual(['reaction.update']);
  });

  it('a throwing listener does not break the connection', async () => {
    const s = setup();
    const unknown: string[] = [];
    s.d.on('event', () => {
      throw new Error('handler bug');
    });
    s.d.on('unknownFrame', ({ type }) => unknown.push(type));
    void s.d.start();
    await opened(s);
    s.sockets[0]!.message({ type: 'reaction.update', payload: {} });
    s.sockets[0]!.message({ type: 'later.frame' });
    expect(s.d.state).toBe('open');
    expect(s.sockets[0]!.closeCalls).toEqual([]);
    expect(unknown).toEqual(['later.frame']);
  });

  it('refuses bad options', () => {
    const fake = fakeSocketClass();
    const base = { url: 'wss://x/ws', agentId: 'a1', token: TOKEN, WebSocket: fake.ctor };
    expect(() => createWsDispatcher({ ...base, url: 'https://x/ws' })).toThrow(/url/);
    expect(() => createWsDispatcher({ ...base, url: `wss://x/ws?token=${TOKEN}` })).toThrow(/url/);
    expect(() => createWsDispatcher({ ...base, agentId: '' })).toThrow(/agentId/);
    expect(() => createWsDispatcher({ ...base, credentials: () => TOKEN })).toThrow(/exactly one/);
    expect(() => createWsDispatcher({ ...base, authTimeoutMs: 0 })).toThrow(/authTimeoutMs/);
  });

  it('arbitrary frames never crash the dispatcher: only events, unknown frames or protocol errors (property)', async () => {
    const frame = fc.oneof(
      fc.string(),
      fc.json(),
      fc.record(
        {
          type: fc.constantFrom(
            'message.new',
            'reaction.update',
            'auth.ok',
            'auth.error',
            'auth',
            'auth.renew',
            'x.y',
            'auth.expiring',
          ),
          payload: fc.jsonValue(),
          reason: fc.jsonValue(),
          wire_envelope: fc.jsonValue(),
        },
        { requiredKeys: ['type'] },
      ),
      fc.uint8Array({ maxLength: 8 }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(frame, { maxLength: 12 }), async (frames) => {
        const s = setup();
        const outcomes: unknown[] = [];
        s.d
          .on('protocolError', (e) => outcomes.push(e))
          .on('event', (f) => outcomes.push(f))
          .on('unknownFrame', (f) => outcomes.push(f))
          .on('renewed', () => outcomes.push('renewed'))
          .on('authError', (a) => outcomes.push(a))
          .on('authExpiring', (a) => outcomes.push(a));
        void s.d.start();
        await opened(s);
        for (const f of frames) s.sockets[0]!.message(f);
        expect(s.d.state).toBe('open');
        expect(outcomes).toHaveLength(frames.length);
        for (const o of outcomes) if (o instanceof Error) expect(isAmsError(o)).toBe(true);
        await s.d.close();
      }),
      { numRuns: 200 },
    );
  });
});
