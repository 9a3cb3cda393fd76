/**
 * What a UserClient makes of an opened envelope's payload (src/client/open-message.ts):
 * a peer's payload is checked as the Agent checks it, so `msg.payload.type` narrows
 * to what it says; the service's notices (sender `system`) are kept as they came.
 */
import { describe, expect, it } from 'vitest';
import { isValidationError } from '../../../packages/sdk/src/index.js';
import { openDelivered } from '../../../packages/sdk/src/client/open-message.js';
import { generateKeys } from '../../../packages/sdk/src/crypto/keys.js';
import { seal } from '../../../packages/sdk/src/crypto/seal.js';
import type { KeyDirectory } from '../../../packages/sdk/src/messaging/key-directory.js';

const user = generateKeys();
const peer = generateKeys();
const system = generateKeys();
const conversationId = 'c-1';

const directory = {
  signingKey: async (id: string) => (id === 'system' ? system : peer).signing.publicKey,
  retiredSigningKeys: async () => [],
} as unknown as KeyDirectory;
const context = { recipientId: 'u-1', keys: [user.encryption], directory };
const inbox = { event: 'inbox', conversationId, seq: 1 };

function sealed(
  payload: Record<string, unknown>,
  from: 'peer-1' | 'system',
  eventType = 'message.new',
): string {
  return seal(payload, {
    sender: { id: from, signing: (from === 'system' ? system : peer).signing },
    recipients: [{ id: 'u-1', publicKey: user.encryption.publicKey }],
    conversationId,
    eventType,
  });
}

describe('a received payload (UserClient)', () => {
  it("narrows on a peer's type", async () => {
    const m = await openDelivered(sealed({ type: 'text', text: 'hi' }, 'peer-1'), inbox, context);
    expect(m.payload.type === 'text' ? m.payload.text : undefined).toBe('hi');
  });

  it("refuses a peer's payload without a type with a ValidationError, as the Agent does", async () => {
    const error = await openDelivered(sealed({ text: 'no type' }, 'peer-1'), inbox, context).catch(
      (e: unknown) => e,
    );
    expect(isValidationError(error)).toBe(true);
    expect(String((error as Error).message)).not.toContain('no type');
  });

  it("keeps the service's delivery-failure notice as it came, narrowed by its type", async () => {
    const notice = {
      type: 'delivery.failed',
      message_id: 'm-1',
      conversation_id: conversationId,
      recipient_id: 'a-1',
      reason: 'pending_expired',
    };
    const m = await openDelivered(sealed(notice, 'system', 'delivery.failed'), inbox, context);
    expect(m.senderId).toBe('system');
    expect(m.payload.type === 'delivery.failed' ? m.payload.message_id : undefined).toBe('m-1');
  });
});
