import { describe, expect, it } from 'vitest';
import { FORWARD_PROOF_MAX_CHARS } from '../../../packages/sdk/src/core/protocol/artifacts.js';
import type { EnvelopePayload } from '../../../packages/sdk/src/crypto/payload.js';
import { RelayActions, type RelayActionsDeps } from '../../../packages/sdk/src/messaging/relay-actions.js';

/** RelayActions over fakes: records each sealed payload, answers the forward request. */
function actions(discloseKey?: RelayActionsDeps['discloseKey']) {
  const sealed: EnvelopePayload[] = [];
  const sender = {
    sealAndPost: (_c: string, payload: EnvelopePayload, _o: unknown, post: (w: string) => unknown) => {
      sealed.push(payload);
      return post('wire');
    },
  };
  const rest = {
    request: (r: { body: { targets: { conversation_id: string }[] } }) =>
      Promise.resolve({
        forwarded: r.body.targets.map((t, i) => ({
          conversation_id: t.conversation_id,
          message_id: `m${i}`,
          seq: i,
        })),
      }),
  };
  const deps = {
    rest: () => rest,
    sender: () => Promise.resolve(sender),
    ...(discloseKey === undefined ? {} : { discloseKey }),
  } as unknown as RelayActionsDeps;
  return { relay: new RelayActions(deps), sealed };
}

const source = (wireEnvelope: string) => ({
  conversationId: 'c0',
  messageId: 'm0',
  senderId: 'alice',
  createdAt: '2026-11-27T12:00:00.000Z',
  payload: { type: 'text', text: 'hi' },
  wireEnvelope,
});

describe('forward proofs in RelayActions', () => {
  it('adds the proof to every copy while the proofs fit the budget, none past it', async () => {
    const key = new Uint8Array(32).fill(9);
    const small = actions(() => Promise.resolve(new Uint8Array(key)));
    await small.relay.forward(source('QUFB'), ['c1', 'c2']);
    expect(small.sealed).toHaveLength(2);
    for (const p of small.sealed) {
      expect(p['proof']).toEqual({ wire_envelope: 'QUFB', content_key: Buffer.from(key).toString('base64') });
    }
    const tooLarge = 'A'.repeat(Math.floor(FORWARD_PROOF_MAX_CHARS / 10) + 4);
    const big = actions(() => Promise.resolve(new Uint8Array(key)));
    await big.relay.forward(
      source(tooLarge),
      Array.from({ length: 10 }, (_, i) => `c${i + 1}`),
    );
    expect(big.sealed.every((p) => p['proof'] === undefined)).toBe(true);
    await big.relay.forward(source(tooLarge), ['c1']);
    expect(big.sealed.at(-1)?.['proof']).toBeDefined();
  });

  it('forwards without a proof when the key cannot be disclosed or nothing discloses it', async () => {
    const failing = actions(() => Promise.reject(new Error('no_wrap')));
    await failing.relay.forward(source('QUFB'), ['c1']);
    expect(failing.sealed[0]?.['proof']).toBeUndefined();
    const none = actions();
    await none.relay.forward(source('QUFB'), ['c1']);
    expect(none.sealed[0]?.['proof']).toBeUndefined();
  });
});
