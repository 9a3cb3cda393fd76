import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../../packages/sdk/src/core/clock.js';
import type { UserPrincipal } from '../../../../packages/dev/src/server/http/types.js';
import { WsHub, type AuthOutcome } from '../../../../packages/dev/src/server/ws/hub.js';

const silent = { info: () => {}, warn: () => {}, error: () => {} };
const principal: UserPrincipal = { kind: 'user', userId: 'u', deviceId: 'd', sessionId: 's', expiresAtMs: 0 };

function fakeSocket() {
  const sent: unknown[] = [];
  const closes: [number, string][] = [];
  return {
    sent,
    closes,
    socket: {
      send: (t: string) => void sent.push(JSON.parse(t)),
      close: (c: number, r: string) => void closes.push([c, r]),
    },
  };
}

function hubWith(outcome: () => Promise<AuthOutcome>) {
  const clock = new ManualClock(0);
  const hub = new WsHub(clock, silent);
  hub.addAuthenticator({ matches: (f) => 'access_token' in f, authenticate: outcome });
  return { clock, hub };
}

const flush = () => new Promise((r) => setTimeout(r, 0));

describe('WsHub', () => {
  it('closes a connection without an auth frame after 5 s of clock time', () => {
    const { clock, hub } = hubWith(async () => ({ ok: true, principal }));
    const s = fakeSocket();
    hub.accept(s.socket);
    clock.advance(4_999);
    expect(s.closes).toEqual([]);
    clock.advance(1);
    expect(s.sent).toEqual([{ type: 'auth.error', reason: 'auth_timeout' }]);
    expect(s.closes).toEqual([[4002, 'auth_timeout']]);
    expect(hub.connections()).toEqual([]);
  });

  it('authenticates, then dispatches frames queued during authentication in order', async () => {
    let release!: () => void;
    const { clock, hub } = hubWith(() => new Promise((r) => (release = () => r({ ok: true, principal }))));
    const seen: unknown[] = [];
    hub.handle('echo', (f) => void seen.push(f['n']));
    const s = fakeSocket();
    const sink = hub.accept(s.socket);
    sink.receive(JSON.stringify({ type: 'auth', access_token: 't' }));
    sink.receive(JSON.stringify({ type: 'echo', n: 1 }));
    sink.receive(JSON.stringify({ type: 'echo', n: 2 }));
    release();
    await flush();
    expect(s.sent[0]).toEqual({ type: 'auth.ok' });
    expect(seen).toEqual([1, 2]);
    clock.advance(10_000);
    expect(s.closes).toEqual([]);
  });

  it('refuses, with auth.error and 4001, what no authenticator accepts', async () => {
    const { hub } = hubWith(async () => ({ ok: false, reason: 'invalid_token' }));
    for (const [text, reason] of [
      ['{"type":"auth","access_token":"t"}', 'invalid_token'],
      ['{"type":"auth","agent_id":"a","token":"t"}', 'invalid_frame'],
      ['nonsense', 'invalid_frame'],
    ] as const) {
      const s = fakeSocket();
      hub.accept(s.socket).receive(text);
      await flush();
      expect(s.sent).toEqual([{ type: 'auth.error', reason }]);
      expect(s.closes).toEqual([[4001, reason]]);
    }
  });

  it('invalidates only the connections of the revoked device', async () => {
    const { hub } = hubWith(async () => ({ ok: true, principal }));
    const mine = fakeSocket();
    const other = fakeSocket();
    hub.accept(mine.socket).receive('{"type":"auth","access_token":"t"}');
    hub.accept(other.socket);
    await flush();
    expect(hub.invalidateDevice('u', 'd')).toBe(1);
    expect(mine.sent.at(-1)).toEqual({ type: 'session.invalidated', device_id: 'd' });
    expect(mine.closes).toEqual([[4004, 'session_invalidated']]);
    expect(other.closes).toEqual([]);
    expect(hub.invalidateDevice('u', 'd')).toBe(0);
  });

  it('a handler that throws yields an INTERNAL_ERROR frame, not a crash', async () => {
    const { hub } = hubWith(async () => ({ ok: true, principal }));
    hub.handle('boom', () => {
      throw new Error('secret detail');
    });
    const s = fakeSocket();
    const sink = hub.accept(s.socket);
    sink.receive('{"type":"auth","access_token":"t"}');
    await flush();
    sink.receive('{"type":"boom"}');
    await flush();
    expect(s.sent.at(-1)).toMatchObject({ type: 'error', error: { code: 'INTERNAL_ERROR' } });
    expect(JSON.stringify(s.sent)).not.toContain('secret detail');
  });
});
