/**
 * Issue #24, the ghost detector. The service serves the keys, so it can make
 * a sender wrap to a key of its own listed under the recipient's id (issue
 * item 1: an extra "retired" key in its first answer). Every recipient entry
 * of an envelope names the recipient id and the fingerprint of the key
 * wrapped to, under the sender's signature, so the genuine recipient sees the
 * extra wrap when the message arrives: a wrap addressed to it under a key it
 * does not hold. The Agent and the UserClient report it as a typed
 * `keyWarning` (`ghost_key`, with the fingerprints); the message itself is
 * still delivered.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toBase64 } from '../../packages/sdk/src/core/encoding.js';
import { generateKeys, keyFingerprint, MemoryKeyStore, seal } from '../../packages/sdk/src/crypto/index.js';
import type { KeyWarning } from '../../packages/sdk/src/messaging/ghost-keys.js';
import type { ReceivedMessage } from '../../packages/sdk/src/client/index.js';
import { nextEvent } from '../helpers/client-setup.js';
import { registeredKey, userSocket } from './service-keys.js';
import { startSecurityWorld, type SecurityWorld } from './world.js';

let world: SecurityWorld;
const keyStore = new MemoryKeyStore();
/** The service's own key pair, slipped in under the user's id and under the agent's. */
const ghost = generateKeys().encryption;
const ghostFingerprint = keyFingerprint(ghost.publicKey);

beforeAll(async () => {
  world = await startSecurityWorld({ agent: { keyStore } });
  world.agent.on('message.new', async (msg) => {
    await msg.reply(`echo: ${msg.text ?? ''}`);
  });
  // The hostile service: every key answer lists its ghost as a "retired" generation of the principal.
  world.relay.onResponse = (_method, path, json) => {
    if (!path.startsWith('/keys/') || path === '/keys/backup') return json;
    const body = json as { data?: { retired?: unknown[] } };
    if (body.data === undefined) return json;
    const retired = [
      ...(body.data.retired ?? []),
      {
        public_key: toBase64(ghost.publicKey),
        key_id: ghostFingerprint,
        valid_until: '2099-01-01T00:00:00.000Z',
        retired_at: '2099-01-01T00:00:00.000Z',
      },
    ];
    return { ...body, data: { ...body.data, retired } };
  };
});
afterAll(async () => {
  await world.close();
});

/** The fingerprints listed for `id` in every envelope the relay carried to the service. */
function wrappedFor(id: string): Set<string> {
  const out = new Set<string>();
  for (const s of world.relay.seen) {
    if (s.channel !== 'http-request' || !s.text.includes('wire_envelope')) continue;
    const wire = (JSON.parse(s.text) as { wire_envelope?: string }).wire_envelope;
    if (wire === undefined) continue;
    const bytes = Buffer.from(wire, 'base64');
    const idBytes = Buffer.from(id, 'utf8');
    for (let at = bytes.indexOf(idBytes); at >= 0; at = bytes.indexOf(idBytes, at + 1)) {
      if (bytes[at - 1] === idBytes.length)
        out.add(bytes.subarray(at + idBytes.length, at + idBytes.length + 8).toString('hex'));
    }
  }
  return out;
}

describe('the ghost detector', () => {
  it('a sender tricked into wrapping to an extra key: the recipient reports it, or the sender refused it', async () => {
    const userWarnings: KeyWarning[] = [];
    const agentWarnings: KeyWarning[] = [];
    world.user.client.on('keyWarning', (w) => void userWarnings.push(w));
    world.agent.on('keyWarning', (w) => void agentWarnings.push(w));

    const reply = nextEvent<[ReceivedMessage]>(world.user.client, 'message');
    await world.user.client.send(world.conversationId, { type: 'text', text: 'for your eyes only' });
    await reply;

    // User → agent: either the user did not wrap to the ghost, or the agent reported it.
    if (wrappedFor(world.agentId).has(ghostFingerprint)) {
      expect(agentWarnings).toHaveLength(1);
      expect(agentWarnings[0]).toMatchObject({
        kind: 'ghost_key',
        senderId: world.user.userId,
        conversationId: world.conversationId,
        fingerprints: [ghostFingerprint],
      });
    } else {
      expect(agentWarnings).toEqual([]);
    }
    // Agent → user: the same.
    if (wrappedFor(world.user.userId).has(ghostFingerprint)) {
      expect(userWarnings).toHaveLength(1);
      expect(userWarnings[0]).toMatchObject({
        kind: 'ghost_key',
        senderId: world.agentId,
        fingerprints: [ghostFingerprint],
      });
    } else {
      expect(userWarnings).toEqual([]);
    }
  });

  it('an envelope the relay carries with a wrap to a key the user does not hold raises keyWarning on the UserClient', async () => {
    const ring = (await keyStore.load())!;
    const userKey = registeredKey(world.relay, world.user.userId);
    const createdAt = new Date().toISOString();
    const wire = seal(
      { type: 'text', text: 'also readable by the ghost' },
      {
        sender: { id: world.agentId, signing: ring.current.keys.signing },
        recipients: [
          { id: world.user.userId, publicKey: userKey },
          { id: world.user.userId, publicKey: ghost.publicKey },
        ],
        conversationId: world.conversationId,
        createdAt,
      },
    );
    const warned = nextEvent<[KeyWarning]>(world.user.client, 'keyWarning');
    const delivered = nextEvent<[ReceivedMessage]>(world.user.client, 'message');
    userSocket(world.relay).toClient({
      type: 'message.new',
      version: 'v1',
      wire_envelope: wire,
      metadata: { conversation_id: world.conversationId, sender_id: world.agentId, created_at: createdAt },
      delivery_id: crypto.randomUUID(),
    });
    const [warning] = await warned;
    expect(warning).toMatchObject({
      kind: 'ghost_key',
      senderId: world.agentId,
      conversationId: world.conversationId,
      fingerprints: [ghostFingerprint],
      ownFingerprints: [keyFingerprint(userKey)],
    });
    const [message] = await delivered;
    expect(message.payload).toEqual({ type: 'text', text: 'also readable by the ghost' });
  });
});
