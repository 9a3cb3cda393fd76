/**
 * What the hostile service knows and holds, for the attack tests: the public
 * keys its clients registered (read from what crossed the relay), and a
 * system sender of its own (the service is the system sender, so it holds
 * that key), served in place of the reference server's from `GET /system/keys`.
 */
import { fromBase64, toBase64 } from '../../packages/sdk/src/core/encoding.js';
import { generateKeys, keyFingerprint, seal, type AgentKeys } from '../../packages/sdk/src/crypto/index.js';
import type { HostileRelay, RelaySocket } from '../helpers/hostile-relay.js';

/** The X25519 public key of a principal, as the relay saw it (a key look-up answer, or an agent's key registration). */
export function registeredKey(relay: HostileRelay, principalId: string): Uint8Array {
  for (const s of relay.seen) {
    if (s.channel !== 'http-response' || !s.path.startsWith('/keys/')) continue;
    const data = (JSON.parse(s.text) as { data?: { id?: string; public_key?: string } }).data;
    if (data?.id === principalId && data.public_key !== undefined) return fromBase64(data.public_key)!;
  }
  for (const s of relay.seen) {
    if (s.channel !== 'http-request') continue;
    if (s.path !== `/agents/${principalId}/keys`) continue;
    const key = (JSON.parse(s.text) as { public_key?: string }).public_key;
    if (key !== undefined) return fromBase64(key)!;
  }
  throw new Error(`the relay never saw a key of ${principalId}`);
}

/** Makes the relay answer `GET /system/keys` with a system key pair of its own; returns that pair. */
export function serveOwnSystemKeys(relay: HostileRelay): AgentKeys {
  const keys = generateKeys();
  const previous = relay.onResponse;
  relay.onResponse = (method, path, json) => {
    if (path !== '/system/keys') return previous === undefined ? json : previous(method, path, json);
    return {
      data: {
        id: 'system',
        kind: 'system',
        public_key: toBase64(keys.encryption.publicKey),
        signing_public_key: toBase64(keys.signing.publicKey),
        key_id: keyFingerprint(keys.encryption.publicKey),
        signing_key_id: keyFingerprint(keys.signing.publicKey),
      },
    };
  };
  return keys;
}

/** Seals `payload` as `system` (with `keys`) to one recipient key, signed as `eventType`. */
export function sealAsSystem(
  keys: AgentKeys,
  eventType: string,
  payload: Record<string, unknown>,
  to: { id: string; publicKey: Uint8Array },
  conversationId: string,
  messageId: string = crypto.randomUUID(),
): { wire: string; messageId: string; createdAt: string } {
  const createdAt = new Date().toISOString();
  const wire = seal(payload, {
    sender: { id: 'system', signing: keys.signing },
    recipients: [to],
    conversationId,
    messageId,
    createdAt,
    eventType,
  });
  return { wire, messageId, createdAt };
}

/** The relay socket of the user (the world connects the agent first, then the user). */
export function userSocket(relay: HostileRelay): RelaySocket {
  const socket = relay.sockets[1];
  if (socket === undefined) throw new Error('the user is not connected through the relay');
  return socket;
}

/** The relay socket of the agent (connected first). */
export function agentSocket(relay: HostileRelay): RelaySocket {
  const socket = relay.sockets[0];
  if (socket === undefined) throw new Error('the agent is not connected through the relay');
  return socket;
}
