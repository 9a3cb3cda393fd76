/**
 * The message sender with a fake poster and key source: who the envelope is
 * sealed to, re-sealing once after a stale-key answer, and errors passed
 * through typed.
 */
import { describe, expect, it } from 'vitest';
import { createKeyDirectory, type KeySource } from '../../../packages/sdk/src/messaging/key-directory.js';
import { createMessageSender, type MessagePoster } from '../../../packages/sdk/src/messaging/sender.js';
import type { PrincipalKeys, SentMessageResult } from '../../../packages/sdk/src/client/index.js';
import { toBase64 } from '../../../packages/sdk/src/core/encoding.js';
import {
  isServiceError,
  isValidationError,
  ServiceError,
} from '../../../packages/sdk/src/core/errors/index.js';
import { generateKeys, KeyRing, open, type AgentKeys } from '../../../packages/sdk/src/crypto/index.js';
import { recordingLogger } from '../../helpers/client-setup.js';

const NOW = Date.parse('2026-03-01T12:00:00.000Z');

function wireKeys(id: string, keys: AgentKeys, retired: AgentKeys[] = []): PrincipalKeys {
  return {
    id,
    kind: 'user',
    public_key: toBase64(keys.encryption.publicKey),
    signing_public_key: toBase64(keys.signing.publicKey),
    retired: retired.map((k) => ({ public_key: toBase64(k.encryption.publicKey), valid_until: null })),
  };
}

function world() {
  const user = generateKeys();
  const userOld = generateKeys();
  const agent = generateKeys();
  const answers = new Map<string, PrincipalKeys>([['u1', wireKeys('u1', user, [userOld])]]);
  const lookups: string[] = [];
  const source: KeySource = {
    async publicKeys(id) {
      lookups.push(id);
      const a = answers.get(id);
      if (a === undefined)
        throw new ServiceError({ code: 'KEY_ENUMERATION_BLOCKED', status: 403, message: 'no' });
      return a;
    },
    systemKeys: () => Promise.reject(new Error('unused')),
    async conversation(id) {
      lookups.push(`conversation ${id}`);
      return {
        conversation_id: id,
        user_id: 'u1',
        agent_id: 'a1',
        state: 'established',
        members: [
          { id: 'u1', public_key: null },
          { id: 'a1', public_key: null },
        ],
      };
    },
  };
  const posts: { conversationId: string; wire: string }[] = [];
  const failures: unknown[] = [];
  const poster: MessagePoster = {
    async sendMessage(conversationId, wire) {
      posts.push({ conversationId, wire });
      const f = failures.shift();
      if (f !== undefined) throw f;
      return {
        messageId: 'm',
        conversationId,
        seq: posts.length,
        created: true,
        view: { message_id: 'm', conversation_id: conversationId },
      } satisfies SentMessageResult;
    },
  };
  const logger = recordingLogger();
  const directory = createKeyDirectory({ api: source });
  const ring = KeyRing.create(agent, NOW);
  const sender = createMessageSender({ api: poster, agentId: 'a1', keys: () => ring, directory, logger });
  return { user, userOld, agent, answers, lookups, posts, failures, sender, logger };
}

const staleKey = () =>
  new ServiceError({
    code: 'INVALID_ENVELOPE',
    status: 400,
    message: 'missing',
    params: { reason: 'missing_recipient' },
  });

describe('createMessageSender', () => {
  it('seals to the member current key, its keys in grace and the sender itself', async () => {
    const w = world();
    await w.sender.send('c1', { type: 'text', text: 'hi' });
    const wire = w.posts[0]!.wire;
    const signer = () => w.agent.signing.publicKey;
    for (const [id, keys] of [
      ['u1', w.user],
      ['u1', w.userOld],
      ['a1', w.agent],
    ] as const) {
      const opened = open(wire, { recipientId: id, keys, senderKey: signer });
      expect(opened.payload).toEqual({ type: 'text', text: 'hi' });
      expect(opened).toMatchObject({ senderId: 'a1', conversationId: 'c1' });
    }
    expect(
      open(wire, { recipientId: 'u1', keys: w.user, senderKey: signer }).recipients.map((r) => r.id),
    ).toEqual(['u1', 'u1', 'a1']);
  });

  it('after a stale-key answer, refreshes the keys and seals again once under the same message id', async () => {
    const w = world();
    await w.sender.send('c1', { type: 'text', text: 'warm' });
    const rotated = generateKeys();
    w.answers.set('u1', wireKeys('u1', rotated));
    w.failures.push(staleKey());
    await w.sender.send('c1', { type: 'text', text: 'plaintext-xyz' }, { messageId: 'fixed-id' });
    expect(w.posts).toHaveLength(3);
    const [stale, fresh] = [w.posts[1]!.wire, w.posts[2]!.wire];
    const signer = () => w.agent.signing.publicKey;
    expect(open(stale, { recipientId: 'u1', keys: w.user, senderKey: signer }).messageId).toBe('fixed-id');
    expect(open(fresh, { recipientId: 'u1', keys: rotated, senderKey: signer }).messageId).toBe('fixed-id');
    expect(w.lookups.filter((l) => l === 'u1')).toHaveLength(2);
    expect(w.logger.text()).not.toContain('plaintext-xyz');
  });

  it('sealAndPost hands post the members sealed for, each once, without the sender (artifact approvers)', async () => {
    const w = world();
    const seen: (readonly string[])[] = [];
    const wire = await w.sender.sealAndPost(
      'c1',
      { type: 'text', text: 'hi' },
      {},
      (wire, _id, recipients) => {
        seen.push(recipients);
        return Promise.resolve(wire);
      },
    );
    expect(seen).toEqual([['u1']]); // u1 is wrapped twice (current and in grace), a1 is the sender
    expect(
      open(wire, { recipientId: 'u1', keys: w.user, senderKey: () => w.agent.signing.publicKey }).payload,
    ).toEqual({
      type: 'text',
      text: 'hi',
    });
  });

  it('re-seals at most once', async () => {
    const w = world();
    w.failures.push(staleKey(), staleKey());
    const err = await w.sender.send('c1', { type: 'text', text: 'x' }).catch((e: unknown) => e);
    expect(isServiceError(err, 'INVALID_ENVELOPE')).toBe(true);
    expect(w.posts).toHaveLength(2);
  });

  it('passes RELATION_REVOKED through and forgets the cached conversation', async () => {
    const w = world();
    w.failures.push(new ServiceError({ code: 'RELATION_REVOKED', status: 403, message: 'revoked' }));
    const err = await w.sender.send('c1', { type: 'text', text: 'x' }).catch((e: unknown) => e);
    expect(isServiceError(err, 'RELATION_REVOKED')).toBe(true);
    await w.sender.send('c1', { type: 'text', text: 'y' });
    expect(w.lookups.filter((l) => l === 'conversation c1')).toHaveLength(2);
  });

  it('leaves out a member whose keys are refused and lets the service answer', async () => {
    const w = world();
    w.answers.delete('u1');
    await w.sender.send('c1', { type: 'text', text: 'x' });
    const opened = open(w.posts[0]!.wire, {
      recipientId: 'a1',
      keys: w.agent,
      senderKey: () => w.agent.signing.publicKey,
    });
    expect(opened.recipients.map((r) => r.id)).toEqual(['a1']);
  });

  it('refuses a payload that is not a JSON object before posting', async () => {
    const w = world();
    const err = await w.sender.send('c1', [] as unknown as Record<string, unknown>).catch((e: unknown) => e);
    expect(isValidationError(err)).toBe(true);
    expect(w.posts).toHaveLength(0);
  });
});

describe('membersChanged through the sender', () => {
  it('observes the recipient set without the sender itself', async () => {
    const observed: string[][] = [];
    const user = generateKeys();
    const me = generateKeys();
    const source: KeySource = {
      publicKeys: async (id) => wireKeys(id, user),
      systemKeys: async () => wireKeys('system', user),
      conversation: async (id) =>
        ({
          id,
          members: [wireKeys('u1', user), wireKeys('a1', me)],
        }) as never,
    };
    const sender = createMessageSender({
      api: {
        sendMessage: async (c) => ({ messageId: 'm', conversationId: c, seq: 1, created: true }) as never,
      },
      agentId: 'a1',
      keys: () => KeyRing.create(me, NOW),
      directory: createKeyDirectory({ api: source }),
      members: { observe: (_c, ids) => void observed.push([...ids]) },
    });
    await sender.send('c1', { type: 'text', text: 'hi' });
    expect(observed).toEqual([['u1']]);
  });
});
