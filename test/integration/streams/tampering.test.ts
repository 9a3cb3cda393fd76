/**
 * A broken stream is detected on the human side: tampered, reordered,
 * duplicated and truncated deltas, a forged end, injected through a fault
 * hook on the agent's real socket (the server relays what it gets).
 *
 * The four writes go out in one turn of the event loop, so (stream v2) no
 * checkpoint covers them before the end: a stream broken before its end
 * shows no text at all (`failure.text` is the signed text only).
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { StreamFailureReason } from '../../../packages/sdk/src/client/index.js';
import type { TestWorld } from '../../../packages/dev/src/testing/index.js';
import { faultySocketClass, flipBit, type FrameFault } from './faulty-socket.js';
import { streamWorld, until } from './stream-helpers.js';

let world: TestWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

async function brokenStream(
  fault: FrameFault,
): Promise<{ reason: StreamFailureReason; ends: number; text: string }> {
  const setup = await streamWorld({ agent: { options: { WebSocket: faultySocketClass(fault) } } });
  world = setup.world;
  const w = await world.agent.stream(world.conversationId, { coalesceMs: 0 });
  for (const piece of ['one ', 'two ', 'three ', 'four']) await w.write(piece);
  await w.end().catch(() => undefined);
  const failure = await until(() => setup.log.errors[0], 'streamError');
  return { reason: failure.reason, ends: setup.log.ends.length, text: failure.text };
}

describe('broken streams are reported, never assembled', () => {
  it('a tampered delta (one bit of its ciphertext flipped)', async () => {
    const r = await brokenStream((f) =>
      f['seq'] === 2 ? [{ ...f, ciphertext: flipBit(String(f['ciphertext'])) }] : [f],
    );
    expect(r.reason).toBe('tampered');
    expect(r.text).toBe('');
    expect(r.ends).toBe(0);
  });

  it('a delta replayed under another seq (splice) does not authenticate', async () => {
    let first: unknown;
    const r = await brokenStream((f) => {
      if (f['seq'] === 1) first = f['ciphertext'];
      return f['seq'] === 2 ? [{ ...f, ciphertext: first }] : [f];
    });
    expect(r.reason).toBe('tampered');
    expect(r.text).toBe('');
  });

  it('reordered deltas (3 before 2)', async () => {
    let held: Record<string, unknown> | undefined;
    const r = await brokenStream((f) => {
      if (f['seq'] === 2) {
        held = f;
        return [];
      }
      if (f['seq'] === 3 && held !== undefined) return [f, held];
      return [f];
    });
    expect(r.reason).toBe('out_of_order');
    expect(r.text).toBe('');
  });

  it('a duplicated delta', async () => {
    const r = await brokenStream((f) => (f['seq'] === 2 ? [f, f] : [f]));
    expect(r.reason).toBe('duplicate');
    expect(r.text).toBe('');
  });

  it('a truncated stream (the last delta dropped, the end intact)', async () => {
    const r = await brokenStream((f) => (f['seq'] === 4 ? [] : [f]));
    expect(r.reason).toBe('truncated');
    expect(r.text).toBe('');
  });

  it('an end that claims fewer deltas (the tail cut off and the count lowered)', async () => {
    const r = await brokenStream((f) => (f['type'] === 'stream.end' ? [{ ...f, final_seq: 3 }] : [f]));
    expect(r.reason).toBe('tampered');
  });

  it('a forged transcript hash', async () => {
    const r = await brokenStream((f) =>
      f['type'] === 'stream.end' ? [{ ...f, transcript_hash: flipBit(String(f['transcript_hash'])) }] : [f],
    );
    expect(r.reason).toBe('tampered');
  });

  it('an end signature that is not the agent’s', async () => {
    const r = await brokenStream((f) =>
      f['type'] === 'stream.end' ? [{ ...f, signature: flipBit(String(f['signature'])) }] : [f],
    );
    expect(r.reason).toBe('bad_signature');
  });
});

describe('the relay refuses malformed frames on the WebSocket', () => {
  it('answers a malformed delta with VALIDATION_ERROR and one for an unknown stream with NOT_FOUND', async () => {
    const inbound: Record<string, unknown>[] = [];
    const fault: FrameFault = (f) => {
      if (f['seq'] === 2) return [{ ...f, seq: 0 }];
      if (f['seq'] === 3) return [f, { ...f, stream_id: 'no-such-stream' }];
      return [f];
    };
    const setup = await streamWorld({ agent: { options: { WebSocket: faultySocketClass(fault, inbound) } } });
    world = setup.world;
    const w = await world.agent.stream(world.conversationId, { coalesceMs: 0 });
    for (const piece of ['one ', 'two ', 'three ']) await w.write(piece);
    const errors = await until(() => {
      const found = inbound.filter((f) => f['type'] === 'error');
      return found.length >= 2 ? found : undefined;
    }, 'two error frames');
    const params = errors.map((f) => f['error'] as { code: string; params: { reason: string } });
    expect(params.map((e) => [e.code, e.params.reason])).toEqual([
      ['VALIDATION_ERROR', 'invalid_frame'],
      ['NOT_FOUND', 'unknown_stream'],
    ]);
    // The human side sees delta 3 after delta 1: the gap is reported, the stream not assembled.
    expect((await until(() => setup.log.errors[0], 'streamError')).reason).toBe('out_of_order');
  });
});

describe('aborts', () => {
  it('the agent aborts: the user gets the signed reason, the text the abort signs, and no end', async () => {
    const setup = await streamWorld();
    world = setup.world;
    const w = await world.agent.stream(world.conversationId, { coalesceMs: 0 });
    await w.write('partial');
    await w.abort('tool failed');
    const failure = await until(() => setup.log.errors[0], 'streamError');
    expect(failure.reason).toBe('aborted');
    expect(failure.detail).toBe('tool failed');
    expect(failure.text).toBe('partial');
    expect(setup.log.ends).toEqual([]);
  });
});
