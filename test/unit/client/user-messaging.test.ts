/**
 * The UserClient's receive path (UserMessaging over an in-memory socket, a
 * key directory over a fake key source, a virtual clock): replay protection
 * (acceptance window and de-duplication), the event type check, and retired
 * signing keys accepted only for messages created before their retirement.
 */
import { describe, expect, it } from 'vitest';
import { createKeyDirectory, type KeySource } from '../../../packages/sdk/src/messaging/key-directory.js';
import type { ReceivedMessage } from '../../../packages/sdk/src/client/open-message.js';
import type { ResolvedUserClientOptions } from '../../../packages/sdk/src/client/options.js';
import type { UserSession } from '../../../packages/sdk/src/client/session.js';
import type { UserApi } from '../../../packages/sdk/src/client/user-api.js';
import type { FailedMessage } from '../../../packages/sdk/src/client/user-client-types.js';
import { KeyPins } from '../../../packages/sdk/src/messaging/key-pins.js';
import { UserMessaging } from '../../../packages/sdk/src/client/user-messaging.js';
import type { PrincipalKeys } from '../../../packages/sdk/src/messaging/wire/keys.js';
import { ManualClock } from '../../../packages/sdk/src/core/clock.js';
import { toBase64 } from '../../../packages/sdk/src/core/encoding.js';
import { silentLogger } from '../../../packages/sdk/src/core/logger.js';
import {
  generateKeys,
  seal,
  type AgentKeys,
  type SealOptions,
} from '../../../packages/sdk/src/crypto/index.js';
import { fakeSocketClass } from '../../helpers/transport-fake-socket.js';

const HOUR = 3_600_000;
const USER = 'user-1';
const AGENT = 'agent-1';
const CONV = 'conv-1';
const flush = () => new Promise((r) => setTimeout(r, 0));

function setup(acceptLegacyV10 = true, pins?: KeyPins) {
  const clock = new ManualClock(Date.parse('2026-03-01T12:00:00.000Z'));
  const user = generateKeys();
  const system = generateKeys();
  const agent = { current: generateKeys(), retired: undefined as AgentKeys | undefined, retiredAtMs: 0 };
  const view = (id: string, k: AgentKeys): PrincipalKeys => ({
    id,
    kind: id === 'system' ? 'system' : 'agent',
    public_key: toBase64(k.encryption.publicKey),
    signing_public_key: toBase64(k.signing.publicKey),
  });
  const source: KeySource = {
    publicKeys: async (id) => {
      const v = view(id, agent.current);
      if (agent.retired === undefined) return v;
      const r = agent.retired;
      const retired = {
        public_key: toBase64(r.encryption.publicKey),
        signing_public_key: toBase64(r.signing.publicKey),
        valid_until: new Date(agent.retiredAtMs + 7 * 24 * HOUR).toISOString(),
        retired_at: new Date(agent.retiredAtMs).toISOString(),
      };
      return { ...v, retired: [retired] };
    },
    systemKeys: async () => view('system', system),
    conversation: () => Promise.reject(new Error('not used')),
  };
  const { ctor, sockets } = fakeSocketClass();
  const messages: ReceivedMessage[] = [];
  const failed: (FailedMessage & { conversationId?: string })[] = [];
  const session = {
    info: { userId: USER, deviceId: 'dev-1', accessTokenExpiresAtMs: clock.now() + HOUR },
    accessToken: () => 'token-1',
    refresh: async () => undefined,
    tokenWindow: () => undefined,
  } as unknown as UserSession;
  const messaging = new UserMessaging({
    api: {} as UserApi,
    session,
    directory: createKeyDirectory({ api: source, clock, ttlMs: 0, ...(pins === undefined ? {} : { pins }) }),
    options: {
      wsUrl: 'ws://127.0.0.1:1/ws',
      clock,
      authTimeoutMs: 10_000,
      acceptLegacyV10,
    } as unknown as ResolvedUserClientOptions,
    WebSocket: ctor,
    backoff: { baseMs: 1000, capMs: 1000 },
    log: silentLogger,
    keys: () => ({ encryption: user.encryption, signing: user.signing }),
    emit: ((event: string, arg: never) => {
      if (event === 'message') messages.push(arg);
      if (event === 'messageFailed') failed.push(arg);
    }) as never,
  });
  const sealAs = (from: { id: string; keys: AgentKeys }, o: Partial<SealOptions> = {}) =>
    seal(
      { type: 'text', text: 'approve' },
      {
        sender: { id: from.id, signing: from.keys.signing },
        recipients: [{ id: USER, publicKey: user.encryption.publicKey }],
        conversationId: CONV,
        clock,
        ...o,
      },
    );
  async function connect(): Promise<void> {
    const started = messaging.connect();
    for (let i = 0; i < 20 && sockets.length === 0; i++) await flush();
    sockets[0]!.open();
    sockets[0]!.message({ type: 'auth.ok' });
    await started;
  }
  async function deliver(type: string, wire: string, seq: number): Promise<void> {
    sockets[0]!.message({
      type,
      wire_envelope: wire,
      metadata: { conversation_id: CONV, sender_id: AGENT, created_at: new Date(clock.now()).toISOString() },
      message_id: `m-${seq}`,
      seq,
    });
    // Its Ed25519 check may run on libuv's thread pool: wait for the frame itself, not a number of ticks.
    await flush();
    await messaging.idle();
  }
  return { clock, agent, system, messaging, messages, failed, sealAs, connect, deliver };
}

const reasons = (failed: FailedMessage[]) =>
  failed.map((f) => [f.error.code, 'reason' in f.error ? f.error.reason : undefined]);

describe('UserClient receive path: replay protection (virtual time)', () => {
  it('a message delivered twice within the window is emitted once; replayed 25 h later it is refused as stale', async () => {
    const s = setup();
    await s.connect();
    const wire = s.sealAs({ id: AGENT, keys: s.agent.current }, { messageId: 'approve-1' });
    await s.deliver('message.new', wire, 1);
    s.clock.advance(HOUR);
    await s.deliver('message.new', wire, 2);
    s.clock.advance(24 * HOUR);
    await s.deliver('message.new', wire, 3);
    expect(s.messages.map((m) => [m.messageId, m.seq])).toEqual([['approve-1', 1]]);
    expect(reasons(s.failed)).toEqual([['DECRYPT_FAILURE', 'stale']]);
    expect(s.failed[0]!.error.message).toBe(
      'Envelope could not be opened (stale check failed: created_at is too old)',
    );
    await s.messaging.disconnect();
  });

  it('a relabelled delivery and a system-signed message.new are refused (event_type)', async () => {
    const s = setup();
    await s.connect();
    await s.deliver('delivery.failed', s.sealAs({ id: AGENT, keys: s.agent.current }), 1);
    await s.deliver('message.new', s.sealAs({ id: 'system', keys: s.system }), 2);
    const notice = s.sealAs({ id: 'system', keys: s.system }, { eventType: 'delivery.failed' });
    await s.deliver('delivery.failed', notice, 3);
    expect(s.failed.map((f) => f.error.message)).toEqual([
      'Envelope could not be opened (event_type check failed: the envelope is signed as message.new, delivered as delivery.failed)',
      'Envelope could not be opened (event_type check failed: the system sender does not sign message.new events)',
    ]);
    expect(s.messages.map((m) => [m.event, m.senderId])).toEqual([['delivery.failed', 'system']]);
    await s.messaging.disconnect();
  });
});

describe('UserClient receive path: retired signing keys (finding 4)', () => {
  it('accepts a retired signing key only for messages created before its retirement', async () => {
    const s = setup();
    await s.connect();
    const old = s.agent.current;
    const before = s.sealAs({ id: AGENT, keys: old }, { messageId: 'before' });
    s.clock.advance(60_000);
    // The agent rotates: a new generation registers now, the old one is retired (in grace).
    s.agent.retired = old;
    s.agent.current = generateKeys();
    s.agent.retiredAtMs = s.clock.now();
    s.clock.advance(1);
    const after = s.sealAs({ id: AGENT, keys: old }, { messageId: 'after' });
    const fresh = s.sealAs({ id: AGENT, keys: s.agent.current }, { messageId: 'fresh' });
    await s.deliver('message.new', before, 1);
    await s.deliver('message.new', after, 2);
    await s.deliver('message.new', fresh, 3);
    expect(s.messages.map((m) => m.messageId)).toEqual(['before', 'fresh']);
    expect(reasons(s.failed)).toEqual([['DECRYPT_FAILURE', 'signature']]);
    expect(s.failed[0]!.messageId).toBe('m-2');
    await s.messaging.disconnect();
  });
});

describe('UserClient receive path: legacy v1.0 envelopes', () => {
  it('are emitted by default and refused (INVALID_ENVELOPE) with acceptLegacyV10: false', async () => {
    for (const accept of [true, false]) {
      const s = setup(accept);
      await s.connect();
      await s.deliver('message.new', s.sealAs({ id: AGENT, keys: s.agent.current }, { version: '1.0' }), 1);
      expect(s.messages.map((m) => m.seq)).toEqual(accept ? [1] : []);
      expect(s.failed.map((f) => f.error.message)).toEqual(
        accept ? [] : ['Invalid envelope: legacy v1.0 envelopes are not accepted'],
      );
      await s.messaging.disconnect();
    }
  });
});

describe("UserClient receive path: pinned keys under keyChangePolicy 'block'", () => {
  it('refuses a message signed by a changed key (KEY_CHANGED) until confirmKey, then opens it', async () => {
    const changes: string[] = [];
    const pins = new KeyPins({ policy: 'block', onKeyChanged: (e) => changes.push(e.peerId) });
    const s = setup(true, pins);
    await s.connect();
    await s.deliver('message.new', s.sealAs({ id: AGENT, keys: s.agent.current }), 1);
    s.agent.current = generateKeys(); // the service now shows other keys (no retired generation)
    await s.deliver('message.new', s.sealAs({ id: AGENT, keys: s.agent.current }), 2);
    expect(reasons(s.failed)).toEqual([['KEY_CHANGED', undefined]]);
    expect(changes).toEqual([AGENT]);
    expect(await pins.confirmKey(AGENT)).toBe(true);
    await s.deliver('message.new', s.sealAs({ id: AGENT, keys: s.agent.current }), 3);
    expect(s.messages.map((m) => m.seq)).toEqual([1, 3]);
    await s.messaging.disconnect();
  });
});
