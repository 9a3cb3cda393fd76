/**
 * Streams of a webhook-mode agent over REST (`STREAM_ROUTES`): a full stream,
 * `STREAM_TIMEOUT` (408) for both timeouts, `client_offline` at the start,
 * malformed and unknown-stream requests. Nothing is retried.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  isServiceError,
  StreamError,
  type ServiceError,
} from '../../../packages/sdk/src/core/errors/index.js';
import { routePath, STREAM_ROUTES } from '../../../packages/sdk/src/core/protocol/service-names.js';
import type { TestWorld } from '../../../packages/dev/src/testing/index.js';
import { streamWorld, until } from './stream-helpers.js';

let world: TestWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const webhookMode = { agent: { mode: 'webhook' as const } };

describe('streams over REST (webhook mode)', () => {
  it('relays a full stream in batches; the user verifies it', async () => {
    const setup = await streamWorld(webhookMode);
    world = setup.world;
    const words = Array.from({ length: 300 }, (_, i) => `w${i} `);
    const summary = await world.agent.streamFrom(world.conversationId, words, { coalesceMs: 0 });
    const end = await until(() => setup.log.ends[0], 'streamEnd');
    expect(end.text).toBe(words.join(''));
    expect(summary.deltas).toBe(300);
    expect(setup.log.deltas.map((d) => d.seq)).toEqual(words.map((_, i) => i + 1));
  });

  it('answers STREAM_TIMEOUT (408, orphan_detected) after 30 s without a delta', async () => {
    const setup = await streamWorld(webhookMode);
    world = setup.world;
    const w = await world.agent.stream(world.conversationId, { coalesceMs: 0 });
    await w.write('a');
    await until(() => setup.log.deltas[0], 'delta');
    await world.advanceTime(30_000);
    await w.write('b');
    const err = await w.end().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StreamError);
    expect((err as StreamError).reason).toBe('orphan_detected');
    expect((err as StreamError).code).toBe('STREAM_TIMEOUT');
    const http = (err as StreamError).cause as ServiceError;
    expect(http.status).toBe(408);
    expect(http.code).toBe('STREAM_TIMEOUT');
    expect((await until(() => setup.log.errors[0], 'streamError')).reason).toBe('orphan_detected');
  });

  it('answers STREAM_TIMEOUT (408, stream_timeout) after 5 minutes', async () => {
    const setup = await streamWorld(webhookMode);
    world = setup.world;
    const w = await world.agent.stream(world.conversationId, { coalesceMs: 0 });
    for (let i = 0; i < 11; i += 1) {
      await w.write(`${i} `);
      await until(() => setup.log.deltas[i], `delta ${i}`);
      await world.advanceTime(i < 10 ? 29_000 : 10_000);
      if (i === 5) await world.user.refresh();
    }
    const err = await w.end('late').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StreamError);
    expect((err as StreamError).reason).toBe('stream_timeout');
    expect(((err as StreamError).cause as ServiceError).status).toBe(408);
  });

  it('refuses the start with client_offline (NOT_FOUND) when the user has no connected device', async () => {
    const setup = await streamWorld(webhookMode);
    world = setup.world;
    await world.user.disconnect();
    const err = await world.agent.stream(world.conversationId).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StreamError);
    expect((err as StreamError).reason).toBe('client_offline');
    expect(((err as StreamError).cause as ServiceError).status).toBe(404);
  });

  it('refuses malformed batches and unknown streams with typed errors', async () => {
    const setup = await streamWorld(webhookMode);
    world = setup.world;
    const rest = world.agent.api.rest;
    const deltas = routePath(STREAM_ROUTES.streamDeltas, { stream_id: 'no-such-stream' });
    const unknown = await rest
      .post(deltas, { deltas: [{ seq: 1, ciphertext: 'AAAAAAAAAAAAAAAAAAAAAA==' }] })
      .catch((e: unknown) => e);
    expect(isServiceError(unknown, 'NOT_FOUND')).toBe(true);
    const malformed = await rest
      .post(deltas, { deltas: [{ seq: 0, ciphertext: '%%%' }] })
      .catch((e: unknown) => e);
    expect(isServiceError(malformed, 'VALIDATION_ERROR')).toBe(true);
    const empty = await rest.post(deltas, { deltas: [] }).catch((e: unknown) => e);
    expect(isServiceError(empty, 'VALIDATION_ERROR')).toBe(true);
  });
});
