/**
 * Stopping a turn against a hostile service (#26): a stop is a sealed,
 * signed `turn.stop` message, so the service can neither forge one in the
 * human's name (bad signature: a `decryptFailure`, the turn runs on) nor stop
 * the human's turn as a principal it mints into the conversation (its stop
 * aborts nothing: `turns: 0`); the human's real stop, through the same relay,
 * aborts the turn.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isMessage } from '../../packages/sdk/src/agent/context.js';
import type { DecryptFailure } from '../../packages/sdk/src/agent/events.js';
import type { TurnStoppedEvent } from '../../packages/sdk/src/agent/turns/stop.js';
import { systemClock, type Clock } from '../../packages/sdk/src/core/clock.js';
import { toBase64 } from '../../packages/sdk/src/core/encoding.js';
import { generateKeys, sealAsync } from '../../packages/sdk/src/crypto/index.js';
import { answer } from '../helpers/hostile-relay.js';
import { startSecurityWorld, type SecurityWorld } from './world.js';

let world: SecurityWorld;
let serverNow: (() => number) | undefined;
const clock: Clock = {
  now: () => serverNow?.() ?? Date.now(),
  setTimeout: (fn, ms, options) => systemClock.setTimeout(fn, ms, options),
  clearTimeout: (handle) => systemClock.clearTimeout(handle),
};
const failures: DecryptFailure[] = [];
const stops: TurnStoppedEvent[] = [];
const turns: { text: string; signal: AbortSignal }[] = [];

beforeAll(async () => {
  world = await startSecurityWorld({ agent: { clock }, user: { clock } });
  serverNow = () => world.server.control.now();
  world.agent.on('decryptFailure', (f) => failures.push(f));
  world.agent.on('turnStopped', (e) => stops.push(e));
  world.agent.filter(isMessage, async (ctx) => {
    turns.push({ text: ctx.text ?? '', signal: ctx.signal });
    await new Promise<void>((resolve) =>
      ctx.signal.addEventListener('abort', () => resolve(), { once: true }),
    );
  });
});
afterAll(async () => {
  await world?.close();
});

async function until<T>(check: () => T | undefined, what: string): Promise<T> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const v = check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

async function agentEncryptionKey(): Promise<Uint8Array> {
  const { accessToken } = await world.server.control.accessToken(world.user.userId);
  const res = await fetch(`${world.server.url}/keys/${world.agentId}`, {
    headers: { authorization: `Bearer ${accessToken}` },
  });
  const body = (await res.json()) as { data: { public_key: string } };
  return Uint8Array.from(Buffer.from(body.data.public_key, 'base64'));
}

/** A `turn.stop` sealed by `senderId` with `signing`, injected as the service would deliver it. */
async function injectStop(
  senderId: string,
  signing: ReturnType<typeof generateKeys>['signing'],
): Promise<void> {
  const wire = await sealAsync(
    { type: 'turn.stop', stop_id: randomUUID() },
    {
      eventType: 'message.new',
      sender: { id: senderId, signing },
      recipients: [{ id: world.agentId, publicKey: await agentEncryptionKey() }],
      conversationId: world.conversationId,
      messageId: randomUUID(),
      clock,
    },
  );
  const frame = {
    type: 'message.new',
    version: 'v1',
    wire_envelope: wire,
    metadata: {
      conversation_id: world.conversationId,
      sender_id: senderId,
      created_at: new Date(clock.now()).toISOString(),
    },
    delivery_id: randomUUID(),
  };
  expect(world.relay.inject(frame, '/ws')).toBeGreaterThan(0);
}

describe('stopping a turn through a hostile relay', () => {
  it('refuses a forged stop and a minted principal’s stop; the human’s real stop works', async () => {
    await world.user.client.send(world.conversationId, { type: 'text', text: 'long work' });
    const turn = await until(() => turns[0], 'the turn');

    // 1. A stop in the human's name, signed with a key the service holds: the signature fails.
    await injectStop(world.user.userId, generateKeys().signing);
    const failure = await until(() => failures[0], 'decryptFailure');
    expect(failure).toMatchObject({ code: 'DECRYPT_FAILURE', eventType: 'message.new' });
    expect(turn.signal.aborted).toBe(false);

    // 2. A principal the service mints (kind user, keys served by the relay) stops: nothing of the human's stops.
    const minted = generateKeys();
    const mintedId = `u-${randomUUID()}`;
    world.relay.onResponse = (_method, path, json) =>
      path === `/keys/${mintedId}`
        ? answer(200, {
            data: {
              id: mintedId,
              kind: 'user',
              public_key: toBase64(minted.encryption.publicKey),
              signing_public_key: toBase64(minted.signing.publicKey),
              key_id: null,
              signing_key_id: null,
              retired: [],
            },
          })
        : json;
    try {
      await injectStop(mintedId, minted.signing);
      const ignored = await until(() => stops[0], 'the minted stop handled');
      expect(ignored).toMatchObject({ stoppedBy: mintedId, turns: 0 });
      expect(turn.signal.aborted).toBe(false);
    } finally {
      world.relay.onResponse = undefined;
    }

    // 3. The human's own stop, through the same relay: the turn aborts.
    const { stopId } = await world.user.client.stopTurn(world.conversationId);
    const real = await until(() => stops.find((s) => s.stopId === stopId), 'the real stop');
    expect(real).toMatchObject({ stoppedBy: world.user.userId, turns: 1 });
    expect(turn.signal.aborted).toBe(true);
    // What crossed the relay never shows the stop in clear.
    expect(world.relay.seen.some((s) => s.text.includes('turn.stop'))).toBe(false);
  });
});
