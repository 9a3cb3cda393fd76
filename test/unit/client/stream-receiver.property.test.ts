/**
 * The UserClient's stream receiver with real stream crypto and a stand-in
 * for the key envelope: a valid stream assembles and verifies; arbitrary
 * frames never throw; and whatever a relay does to the frames of a stream
 * (drop, repeat, swap, corrupt), the receiver never reports an end whose text
 * differs from what the agent wrote.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  StreamReceiver,
  type StreamEnded,
  type StreamFailure,
} from '../../../packages/sdk/src/client/streams/receiver.js';
import { silentLogger } from '../../../packages/sdk/src/core/logger.js';
import { defaultSyncBackend } from '../../../packages/sdk/src/crypto/backend/node-default.js';
import {
  signStreamEnd,
  streamCipher,
  StreamTranscript,
} from '../../../packages/sdk/src/crypto/stream/stream-crypto.js';

const backend = defaultSyncBackend();
const seed = new Uint8Array(32).fill(9);
const signing = { publicKey: backend.ed25519PublicKey(seed), privateKey: seed };
const key = new Uint8Array(32).fill(3);
const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64');

/** The frames an honest agent produces for `pieces`. */
function honestFrames(streamId: string, pieces: readonly string[]): Record<string, unknown>[] {
  const cipher = streamCipher(key, streamId);
  const t = new StreamTranscript(streamId);
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
    const sealed = cipher.sealDelta(i + 1, new TextEncoder().encode(p));
    t.add(i + 1, sealed);
    frames.push({ type: 'stream.delta', stream_id: streamId, seq: i + 1, ciphertext: b64(sealed) });
  });
  const hash = t.hash;
  frames.push({
    type: 'stream.end',
    stream_id: streamId,
    final_seq: pieces.length,
    transcript_hash: b64(hash),
    signature: b64(signStreamEnd(signing, streamId, pieces.length, hash)),
  });
  return frames;
}

function receiver(): { r: StreamReceiver; ends: StreamEnded[]; errors: StreamFailure[] } {
  const ends: StreamEnded[] = [];
  const errors: StreamFailure[] = [];
  const r = new StreamReceiver({
    openStart: (_wire, _conversationId) =>
      Promise.resolve({
        senderId: 'agent',
        messageId: 's1',
        payload: { type: 'stream.open', v: 1, stream_id: 's1', key: b64(key) },
      }),
    signingKey: () => Promise.resolve(signing.publicKey),
    log: silentLogger,
    emit: {
      streamStart: () => undefined,
      streamDelta: () => undefined,
      streamEnd: (e) => void ends.push(e),
      streamError: (f) => void errors.push(f),
    },
  });
  return { r, ends, errors };
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
      fc.record({ op: fc.constantFrom('drop', 'repeat', 'swap', 'flip'), at: fc.nat() }),
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
          else if (op === 'flip') {
            const f = { ...body[i]! };
            const field = 'ciphertext' in f ? 'ciphertext' : 'signature';
            const bytes = Buffer.from(String(f[field]), 'base64');
            bytes[0] = bytes[0]! ^ 1;
            f[field] = bytes.toString('base64');
            body[i] = f;
          }
        }
        const { r, ends, errors } = receiver();
        r.receive(frames[0]!);
        for (const f of body) r.receive(f);
        await tick();
        for (const e of ends) expect(e.text).toBe(pieces.join(''));
        expect(ends.length + errors.length).toBeLessThanOrEqual(1);
      }),
      { numRuns: 300 },
    );
  });
});
