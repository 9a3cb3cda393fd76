/**
 * Streamed replies end to end against the reference server (real sockets,
 * virtual server time): a full stream verified on the human side, the
 * one-liners, and every stream error value provoked for real.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { StreamError } from '../../../packages/sdk/src/core/errors/index.js';
import type { TestWorld } from '../../../packages/dev/src/testing/index.js';
import { streamWorld, until, type StreamLog } from './stream-helpers.js';

let world: TestWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

async function* tokens(words: readonly string[]): AsyncGenerator<string> {
  for (const w of words) yield w;
}

describe('streamed replies over the agent WebSocket', () => {
  it('relays a full stream: the user gets every delta in order and the verified full text', async () => {
    const setup = await streamWorld();
    world = setup.world;
    const log: StreamLog = setup.log;
    const w = await world.agent.stream(world.conversationId, { coalesceMs: 0 });
    for (const piece of ['Hel', 'lo, ', 'wörld ', '👋']) await w.write(piece);
    const summary = await w.end('!');
    const end = await until(() => log.ends[0], 'streamEnd');
    expect(end.text).toBe('Hello, wörld 👋!');
    expect(summary.text).toBe(end.text);
    expect(end.deltas).toBe(5);
    expect(end.senderId).toBe(world.agentId);
    expect(end.conversationId).toBe(world.conversationId);
    expect(log.starts.map((s) => s.streamId)).toEqual([w.streamId]);
    expect(log.deltas.map((d) => d.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(log.errors).toEqual([]);
  });

  it('streamFrom takes an async iterable and coalesces tiny deltas', async () => {
    const setup = await streamWorld();
    world = setup.world;
    const words = Array.from({ length: 200 }, (_, i) => `t${i} `);
    const summary = await world.agent.streamFrom(world.conversationId, tokens(words), {
      coalesceMs: 50,
      coalesceBytes: 100,
    });
    const end = await until(() => setup.log.ends[0], 'streamEnd');
    expect(end.text).toBe(words.join(''));
    expect(summary.deltas).toBeLessThan(words.length);
    expect(end.deltas).toBe(summary.deltas);
  });

  it('ctx.replyStream answers a message with a stream through the middleware chain', async () => {
    const setup = await streamWorld();
    world = setup.world;
    world.agent.use(async (ctx) => {
      if (ctx.type === 'message.new') await ctx.replyStream(tokens(['You ', 'said: ', ctx.text ?? '']));
    });
    await world.sendAsUser('ping');
    const end = await until(() => setup.log.ends[0], 'streamEnd');
    expect(end.text).toBe('You said: ping');
  });

  it('msg.replyStream on the message.new event: a source piped and ended, or a writer', async () => {
    const setup = await streamWorld();
    world = setup.world;
    world.agent.on('message.new', async (msg) => {
      if (msg.text === 'pipe') {
        await msg.replyStream(tokens(['piped ', 'reply']));
      } else {
        const w = await msg.replyStream({ coalesceMs: 0 });
        await w.write('written ');
        await w.end('reply');
      }
    });
    await world.sendAsUser('pipe');
    expect((await until(() => setup.log.ends[0], 'first streamEnd')).text).toBe('piped reply');
    await world.sendAsUser('write');
    expect((await until(() => setup.log.ends[1], 'second streamEnd')).text).toBe('written reply');
  });

  it('msg.reply passes its options through (an aborted signal stops the send)', async () => {
    const setup = await streamWorld();
    world = setup.world;
    const outcome = new Promise<unknown>((resolve) => {
      world!.agent.on('message.new', async (msg) => {
        resolve(
          await msg.reply('never sent', { signal: AbortSignal.abort(new Error('stop')) }).catch((e) => e),
        );
      });
    });
    await world.sendAsUser('hi');
    expect(((await outcome) as Error).message).toBe('stop');
  });

  it('splits a long write into deltas of at most 8 KiB on UTF-8 boundaries', async () => {
    const setup = await streamWorld();
    world = setup.world;
    const long = 'é'.repeat(10_000); // 20 000 bytes
    const summary = await world.agent.streamFrom(world.conversationId, [long]);
    expect(summary.deltas).toBe(3);
    expect((await until(() => setup.log.ends[0], 'streamEnd')).text).toBe(long);
  });
});

describe('stream error values, each provoked for real', () => {
  it('stream_timeout: 5 minutes without the end (STREAM_TIMEOUT), never retried', async () => {
    const setup = await streamWorld();
    world = setup.world;
    const w = await world.agent.stream(world.conversationId, { coalesceMs: 0 });
    // A delta every 29 s keeps the stream from being an orphan; at 5 minutes it ends anyway.
    for (let i = 0; i < 10; i += 1) {
      await w.write(`${i} `);
      await until(() => setup.log.deltas[i], `delta ${i}`);
      await world.advanceTime(29_000);
      // The user's 300 s access token is renewed on the open socket (auth.renew), as a client does.
      if (i === 5) await world.user.refresh();
    }
    await w.write('last');
    await until(() => setup.log.deltas[10], 'last delta');
    await world.advanceTime(9_999);
    expect(setup.log.errors).toEqual([]);
    await world.advanceTime(1);
    const failure = await until(() => setup.log.errors[0], 'streamError');
    expect(failure.reason).toBe('stream_timeout');
    const err = await w.write('late').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StreamError);
    expect((err as StreamError).reason).toBe('stream_timeout');
    expect((err as StreamError).code).toBe('STREAM_TIMEOUT');
    expect((err as StreamError).status).toBe(408);
    await expect(w.end()).rejects.toBe(err);
  });

  it('orphan_detected: 30 s without a delta (STREAM_TIMEOUT)', async () => {
    const setup = await streamWorld();
    world = setup.world;
    const w = await world.agent.stream(world.conversationId, { coalesceMs: 0 });
    await w.write('thinking…');
    await until(() => setup.log.deltas[0], 'delta');
    await world.advanceTime(29_999);
    await w.write(' still');
    await until(() => setup.log.deltas[1], 'second delta');
    await world.advanceTime(30_000);
    const failure = await until(() => setup.log.errors[0], 'streamError');
    expect(failure.reason).toBe('orphan_detected');
    expect(failure.text).toBe('thinking… still');
    const err = await w.end().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StreamError);
    expect((err as StreamError).reason).toBe('orphan_detected');
    expect((err as StreamError).code).toBe('STREAM_TIMEOUT');
  });

  it('client_offline: the user has no connected device at the start', async () => {
    const setup = await streamWorld();
    world = setup.world;
    await world.user.disconnect();
    const err = await world.agent.stream(world.conversationId).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StreamError);
    expect((err as StreamError).reason).toBe('client_offline');
    expect((err as StreamError).code).toBe('NOT_FOUND');
  });

  it('client_offline: every device of the user disconnects mid-stream', async () => {
    const setup = await streamWorld();
    world = setup.world;
    const w = await world.agent.stream(world.conversationId, { coalesceMs: 0 });
    await w.write('a');
    await until(() => setup.log.deltas[0], 'delta');
    await world.user.disconnect();
    // The human side reports the stream cut short by its own disconnect.
    expect((await until(() => setup.log.errors[0], 'user side')).reason).toBe('truncated');
    // The next delta finds no device left.
    const err = await (async () => {
      for (let i = 0; i < 50; i += 1) {
        try {
          await w.write('b');
          await new Promise((resolve) => setTimeout(resolve, 10));
        } catch (e) {
          return e;
        }
      }
      return undefined;
    })();
    expect(err).toBeInstanceOf(StreamError);
    expect((err as StreamError).reason).toBe('client_offline');
  });

  it('peer_revoked: the user revokes the relation mid-stream', async () => {
    const setup = await streamWorld();
    world = setup.world;
    const w = await world.agent.stream(world.conversationId, { coalesceMs: 0 });
    await w.write('a');
    await until(() => setup.log.deltas[0], 'delta');
    await world.user.revokeConversation(world.conversationId);
    const failure = await until(() => setup.log.errors[0], 'streamError');
    expect(failure.reason).toBe('peer_revoked');
    const err = await w.write('b').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StreamError);
    expect((err as StreamError).reason).toBe('peer_revoked');
    expect((err as StreamError).code).toBe('RELATION_REVOKED');
  });

  it('rate_limited: a ninth open stream of one agent is refused', async () => {
    const setup = await streamWorld();
    world = setup.world;
    const open = [];
    for (let i = 0; i < 8; i += 1) open.push(await world.agent.stream(world.conversationId));
    const err = await world.agent.stream(world.conversationId).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StreamError);
    expect((err as StreamError).reason).toBe('rate_limited');
    expect((err as StreamError).code).toBe('RATE_LIMITED');
    await open[0]!.end('done');
    const again = await world.agent.stream(world.conversationId);
    await again.end('ok');
    await until(() => (setup.log.ends.length === 2 ? true : undefined), 'two ends');
  });
});
