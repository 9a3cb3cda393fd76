/**
 * The UserClient's stream receiver with real stream crypto and a stand-in
 * for the key envelope: a valid stream assembles and verifies; arbitrary
 * frames never throw; and whatever a relay does to the frames of a stream
 * (drop, repeat, swap, corrupt, or a key holder's forged delta), the receiver
 * never shows a delta or reports an end whose text differs from what the
 * agent wrote; its own deadline ends a stream nobody ends (on a manual clock),
 * and a finished stream id in the replay store is refused.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  StreamReceiver,
  type StreamEnded,
  type StreamFailure,
} from '../../../packages/sdk/src/client/streams/receiver.js';
import {
  MemoryStreamReplayStore,
  STREAM_DEADLINE_MS,
  type StreamDelta,
  type StreamReplayStore,
} from '../../../packages/sdk/src/client/streams/receiver.js';
import { ManualClock, systemClock, type Clock } from '../../../packages/sdk/src/core/clock.js';
import { silentLogger } from '../../../packages/sdk/src/core/logger.js';
import { defaultSyncBackend } from '../../../packages/sdk/src/crypto/backend/node-default.js';
import {
  frameStreamDelta,
  signStream,
  signStreamEnd,
  streamCipher,
  StreamChain,
} from '../../../packages/sdk/src/crypto/stream/stream-crypto.js';

const backend = defaultSyncBackend();
const seed = new Uint8Array(32).fill(9);
const signing = { publicKey: backend.ed25519PublicKey(seed), privateKey: seed };
const key = new Uint8Array(32).fill(3);
const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64');

/** The frames an honest agent produces for `pieces` (a checkpoint on every `every`-th delta). */
function honestFrames(streamId: string, pieces: readonly string[], every = 2): Record<string, unknown>[] {
  const cipher = streamCipher(key, streamId);
  const chain = new StreamChain(cipher.chainStart);
  const frames: Record<string, unknown>[] = [
    {
      type: 'stream.start',
      stream_id: streamId,
      conversation_id: 'c1',
      sender_id: 'agent',
      wire_envelope: 'AAAA',
    },
  ];
  pieces.forEach((p, i) => {
    const text = new TextEncoder().encode(p);
    const hash = chain.add(i + 1, text);
    const sig = (i + 1) % every === 0 ? signStream(signing, 'checkpoint', streamId, i + 1, hash) : undefined;
    const sealed = cipher.sealDelta(i + 1, frameStreamDelta(text, sig));
    frames.push({ type: 'stream.delta', stream_id: streamId, seq: i + 1, ciphertext: b64(sealed) });
  });
  const hash = chain.hash;
  frames.push({
    type: 'stream.end',
    stream_id: streamId,
    final_seq: pieces.length,
    transcript_hash: b64(hash),
    signature: b64(signStreamEnd(signing, streamId, pieces.length, hash)),
  });
  return frames;
}

/** A delta a key holder (not the agent) seals: it opens, with her own "checkpoint". */
function forgedDelta(streamId: string, seq: number, text: string): Record<string, unknown> {
  const cipher = streamCipher(key, streamId);
  const mallory = {
    publicKey: backend.ed25519PublicKey(new Uint8Array(32).fill(6)),
    privateKey: new Uint8Array(32).fill(6),
  };
  const sig = signStream(mallory, 'checkpoint', streamId, seq, new Uint8Array(32));
  const sealed = cipher.sealDelta(seq, frameStreamDelta(new TextEncoder().encode(text), sig));
  return { type: 'stream.delta', stream_id: streamId, seq, ciphertext: b64(sealed) };
}

function receiver(
  o: { clock?: Clock; deadlineMs?: number; replayStore?: StreamReplayStore; v?: number } = {},
): {
  r: StreamReceiver;
  ends: StreamEnded[];
  errors: StreamFailure[];
  deltas: StreamDelta[];
} {
  const ends: StreamEnded[] = [];
  const errors: StreamFailure[] = [];
  const deltas: StreamDelta[] = [];
  const r = new StreamReceiver({
    openStart: (_wire, _conversationId) =>
      Promise.resolve({
        senderId: 'agent',
        messageId: 's1',
        payload: { type: 'stream.open', v: o.v ?? 2, stream_id: 's1', key: b64(key) },
      }),
    signingKey: () => Promise.resolve(signing.publicKey),
    log: silentLogger,
    clock: o.clock ?? systemClock,
    deadlineMs: o.deadlineMs,
    replayStore: o.replayStore,
    emit: {
      streamStart: () => undefined,
      streamDelta: (d) => void deltas.push(d),
      streamEnd: (e) => void ends.push(e),
      streamError: (f) => void errors.push(f),
      streamPart: () => undefined,
      streamPartDropped: () => undefined,
    },
  });
  return { r, ends, errors, deltas };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));
const piecesArb = fc.array(fc.string({ minLength: 1, maxLength: 12 }), { minLength: 1, maxLength: 8 });

describe('StreamReceiver', () => {
  it('assembles and verifies an honest stream', async () => {
    const { r, ends, errors } = receiver();
    for (const f of honestFrames('s1', ['a', 'bé', '👋'])) r.receive(f);
    await tick();
    expect(errors).toEqual([]);
    expect(ends.map((e) => e.text)).toEqual(['abé👋']);
  });

  it('shows a delta only once a checkpoint or the end covers it', async () => {
    const { r, deltas, ends } = receiver();
    const frames = honestFrames('s1', ['a', 'b', 'c'], 2); // checkpoint on delta 2 only
    r.receive(frames[0]!);
    await tick();
    r.receive(frames[1]!);
    expect(deltas).toEqual([]); // delta 1: not signed yet
    r.receive(frames[2]!);
    expect(deltas.map((d) => d.delta)).toEqual(['a', 'b']); // delta 2's checkpoint covers 1 and 2
    r.receive(frames[3]!);
    expect(deltas).toHaveLength(2);
    r.receive(frames[4]!);
    expect(deltas.map((d) => d.delta)).toEqual(['a', 'b', 'c']); // the end covers 3
    expect(ends.map((e) => e.text)).toEqual(['abc']);
  });

  it('refuses a stream v1 start (deltas not signed by the sender)', async () => {
    const { r, errors } = receiver({ v: 1 });
    r.receive(honestFrames('s1', ['a'])[0]!);
    await tick();
    expect(errors.map((e) => e.reason)).toEqual(['invalid_start']);
  });

  it('fails a stream with 256 deltas pending and no checkpoint', async () => {
    const { r, errors, deltas } = receiver();
    const frames = honestFrames(
      's1',
      Array.from({ length: 300 }, () => 'x'),
      1_000,
    );
    for (const f of frames) r.receive(f);
    await tick();
    expect(errors.map((e) => e.reason)).toEqual(['tampered']);
    expect(deltas).toEqual([]);
  });

  it("ends a stream nobody ends at the client's own deadline (manual clock)", async () => {
    const clock = new ManualClock(Date.parse('2026-01-01T00:00:00Z'));
    const { r, errors, deltas } = receiver({ clock });
    const frames = honestFrames('s1', ['a', 'b'], 1);
    for (const f of frames.slice(0, -1)) r.receive(f);
    await tick();
    expect(deltas).toHaveLength(2);
    clock.advance(STREAM_DEADLINE_MS - 1);
    expect(errors).toEqual([]);
    clock.advance(1);
    expect(errors.map((e) => [e.reason, e.text])).toEqual([['deadline', 'ab']]);
    r.receive(frames.at(-1)!); // the end, too late: ignored
    expect(errors).toHaveLength(1);
  });

  it('a finished stream id in the replay store is refused before anything is shown', async () => {
    const store = new MemoryStreamReplayStore(systemClock);
    const first = receiver({ replayStore: store });
    for (const f of honestFrames('s1', ['a'])) first.r.receive(f);
    await tick();
    expect(first.ends).toHaveLength(1);
    const second = receiver({ replayStore: store }); // a restarted client, the same store
    for (const f of honestFrames('s1', ['a'])) second.r.receive(f);
    await tick();
    expect(second.errors.map((e) => e.reason)).toEqual(['replayed']);
    expect(second.deltas).toEqual([]);
    expect(second.ends).toEqual([]);
  });

  it('the in-memory replay store forgets ids after their expiry and keeps at most its bound', () => {
    const clock = new ManualClock(0);
    const store = new MemoryStreamReplayStore(clock, 2);
    store.add('a', 10);
    expect(store.has('a')).toBe(true);
    clock.advance(10);
    expect(store.has('a')).toBe(false);
    store.add('b', 100);
    store.add('c', 100);
    store.add('d', 100);
    expect([store.has('b'), store.has('c'), store.has('d')]).toEqual([false, true, true]);
  });

  it('never throws on arbitrary frames', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.dictionary(fc.string(), fc.jsonValue()), { maxLength: 10 }),
        async (frames) => {
          const { r } = receiver();
          for (const f of frames) r.receive(f);
          r.receive({ type: 'stream.delta', stream_id: 's1', seq: 'x' });
          await tick();
        },
      ),
      { numRuns: 200 },
    );
  });

  it('never ends with a text other than the agent wrote, whatever the relay does', async () => {
    const edit = fc.array(
      fc.record({ op: fc.constantFrom('drop', 'repeat', 'swap', 'flip', 'forge'), at: fc.nat() }),
      { minLength: 1, maxLength: 3 },
    );
    await fc.assert(
      fc.asyncProperty(piecesArb, edit, async (pieces, edits) => {
        const frames = honestFrames('s1', pieces);
        const body = frames.slice(1);
        for (const { op, at } of edits) {
          if (body.length === 0) break;
          const i = at % body.length;
          if (op === 'drop') body.splice(i, 1);
          else if (op === 'repeat') body.splice(i, 0, body[i]!);
          else if (op === 'swap' && i + 1 < body.length) [body[i], body[i + 1]] = [body[i + 1]!, body[i]!];
          else if (op === 'forge' && body[i]!['type'] === 'stream.delta')
            body[i] = forgedDelta('s1', Number(body[i]!['seq']), 'FORGED');
          else if (op === 'flip') {
            const f = { ...body[i]! };
            const field = 'ciphertext' in f ? 'ciphertext' : 'signature';
            const bytes = Buffer.from(String(f[field]), 'base64');
            bytes[0] = bytes[0]! ^ 1;
            f[field] = bytes.toString('base64');
            body[i] = f;
          }
        }
        const { r, ends, errors, deltas } = receiver();
        r.receive(frames[0]!);
        await tick();
        for (const f of body) r.receive(f);
        await tick();
        for (const e of ends) expect(e.text).toBe(pieces.join(''));
        // Every delta shown is the agent's own, at its own position.
        for (const d of deltas) expect(d.delta).toBe(pieces[d.seq - 1]);
        expect(ends.length + errors.length).toBeLessThanOrEqual(1);
      }),
      { numRuns: 300 },
    );
  });
});
