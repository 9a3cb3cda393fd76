/**
 * The typed stream parts encoding (#26, core/protocol/stream-parts.ts),
 * fuzzed with fast-check (fixed seed in CI): the reader never throws on any
 * text cut anywhere; the parts it assembles do not depend on where the
 * deltas were cut; a bad record is dropped with a reason and everything
 * after it is still read; text written with the record mark comes back as
 * written. And the two compatibility directions: an old (text-only) reader
 * of a parts stream shows every text in order, each record on a line of its
 * own; a new reader of a stream without `parts` is the plain text reader.
 * Events come in the order written, and a part a key holder seals (with her
 * own checkpoint) is never shown.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  StreamReceiver,
  type StreamEnded,
  type StreamFailure,
  type StreamPartDropped,
} from '../../../packages/sdk/src/client/streams/receiver.js';
import { systemClock } from '../../../packages/sdk/src/core/clock.js';
import { silentLogger } from '../../../packages/sdk/src/core/logger.js';
import {
  checkStreamPartRecord,
  encodeStreamPart,
  encodeStreamText,
  STREAM_PART_LIMITS,
  STREAM_PART_MARK,
  StreamPartsReader,
  type StreamPart,
  type StreamPartRecord,
  type StreamPartsChange,
} from '../../../packages/sdk/src/core/protocol/stream-parts.js';
import { defaultSyncBackend } from '../../../packages/sdk/src/crypto/backend/node-default.js';
import {
  frameStreamDelta,
  signStream,
  signStreamEnd,
  streamCipher,
  StreamChain,
} from '../../../packages/sdk/src/crypto/stream/stream-crypto.js';

const id = fc.string({ minLength: 1, maxLength: 8 });
const json = fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<never>;
const recordArb: fc.Arbitrary<StreamPartRecord> = fc.oneof(
  fc.record({ type: fc.constant('reasoning' as const), text: fc.string({ maxLength: 20 }) }),
  fc.record(
    {
      type: fc.constant('step' as const),
      id,
      status: fc.constantFrom('pending' as const, 'running' as const, 'done' as const, 'failed' as const),
      title: fc.string({ maxLength: 20 }),
      detail: fc.string({ maxLength: 20 }),
    },
    { requiredKeys: ['type', 'id', 'status'] },
  ),
  fc.record(
    { type: fc.constant('tool-call' as const), call_id: id, name: id, input: json },
    { requiredKeys: ['type', 'call_id', 'name'] },
  ),
  fc.record(
    { type: fc.constant('tool-result' as const), call_id: id, output: json },
    { requiredKeys: ['type', 'call_id'] },
  ),
  fc.record({ type: fc.constant('tool-result' as const), call_id: id, error: fc.string({ maxLength: 20 }) }),
  fc.record(
    { type: fc.constant('source' as const), id, url: fc.webUrl(), title: fc.string({ maxLength: 20 }) },
    { requiredKeys: ['type', 'id', 'url'] },
  ),
);
/** A text write, sometimes with the mark or newlines in it. */
const textArb = fc.string({
  unit: fc.constantFrom('a', 'é', '\n', STREAM_PART_MARK, '{', '😀'),
  maxLength: 12,
});
const itemArb = fc.oneof(
  textArb.map((t) => ({ text: t })),
  recordArb.map((r) => ({ record: r })),
);

function encode(items: readonly ({ text: string } | { record: StreamPartRecord })[]): string {
  return items
    .map((i) => {
      if ('text' in i) return encodeStreamText(i.text);
      const e = encodeStreamPart(i.record);
      if ('problem' in e) throw new Error(e.problem);
      return e.text;
    })
    .join('');
}

/** Cuts `s` at the given fractions (never inside a surrogate pair, as UTF-8 delta splits never are). */
function cut(s: string, at: readonly number[]): string[] {
  const points = [...new Set(at.map((f) => Math.floor(f * s.length)))].sort((a, b) => a - b);
  const out: string[] = [];
  let prev = 0;
  for (let p of points) {
    if (p > 0 && p < s.length && /[\uDC00-\uDFFF]/.test(s[p]!)) p -= 1;
    if (p <= prev) continue;
    out.push(s.slice(prev, p));
    prev = p;
  }
  out.push(s.slice(prev));
  return out;
}

function readAll(chunks: readonly string[]): { reader: StreamPartsReader; changes: StreamPartsChange[] } {
  const reader = new StreamPartsReader();
  const changes = chunks.map((c) => reader.push(c));
  changes.push(reader.finish());
  return { reader, changes };
}

const fractions = fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 10 });

describe('stream parts reader', () => {
  it('never throws, whatever the text and wherever it is cut', () => {
    const junk = fc.string({
      unit: fc.oneof(
        fc.constantFrom(STREAM_PART_MARK, '\n', '{', '}', '"', ':', ','),
        fc.string({ maxLength: 1 }),
      ),
      maxLength: 200,
    });
    fc.assert(
      fc.property(
        fc.oneof(
          junk,
          fc.json().map((j) => STREAM_PART_MARK + j + '\n'),
        ),
        fractions,
        (text, at) => {
          const { reader, changes } = readAll(cut(text, at));
          expect(Array.isArray(reader.parts)).toBe(true);
          for (const c of changes) for (const d of c.dropped) expect(typeof d.message).toBe('string');
        },
      ),
    );
  });

  it('assembles the same parts and text wherever the deltas were cut', () => {
    fc.assert(
      fc.property(fc.array(itemArb, { maxLength: 12 }), fractions, (items, at) => {
        const text = encode(items);
        const whole = readAll([text]).reader;
        const pieces = readAll(cut(text, at)).reader;
        expect(pieces.parts).toEqual(whole.parts);
        expect(pieces.text).toBe(whole.text);
        expect(whole.text).toBe(items.map((i) => ('text' in i ? i.text : '')).join(''));
      }),
    );
  });

  it('drops a bad record with a reason and reads everything after it', () => {
    const badRecord = fc.oneof(
      fc.string({ maxLength: 30 }).filter((s) => !s.includes('\n')),
      fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v)),
      fc.constant('{"type":"future-kind","x":1}'),
      fc.constant('{"type":"tool-result","call_id":"never-called","output":1}'),
      fc.constant('{"type":"step","id":"","status":"done"}'),
    );
    fc.assert(
      fc.property(
        fc.array(itemArb, { maxLength: 6 }),
        badRecord,
        fc.array(itemArb, { maxLength: 6 }),
        fractions,
        (before, bad, after, at) => {
          const bodyOk = (() => {
            try {
              return checkStreamPartRecord(JSON.parse(bad)).ok;
            } catch {
              return false;
            }
          })();
          fc.pre(!bodyOk);
          const text = encode(before) + STREAM_PART_MARK + bad.replace(/\n/g, ' ') + '\n' + encode(after);
          const { reader, changes } = readAll(cut(text, at));
          const dropped = changes.flatMap((c) => c.dropped);
          expect(dropped.length).toBeGreaterThanOrEqual(1);
          for (const d of dropped)
            expect(['malformed', 'too_large', 'unknown_type', 'conflict']).toContain(d.reason);
          // Everything after the bad record still arrives: the text of `after` ends the reply.
          const afterText = after.map((i) => ('text' in i ? i.text : '')).join('');
          expect(reader.text.endsWith(afterText)).toBe(true);
        },
      ),
    );
  });

  it('drops a record over the size limit as too_large and goes on', () => {
    const big =
      STREAM_PART_MARK +
      '{"type":"reasoning","text":"' +
      'x'.repeat(STREAM_PART_LIMITS.RECORD_CHARS) +
      '"}\n';
    const { reader, changes } = readAll(cut(big + 'after', [0.3, 0.6, 0.99]));
    expect(changes.flatMap((c) => c.dropped).map((d) => d.reason)).toEqual(['too_large']);
    expect(reader.text).toBe('after');
    expect(reader.parts).toEqual([{ type: 'text', text: 'after' }]);
  });

  it('drops a record cut off by the end as malformed', () => {
    const { changes } = readAll(['hi', STREAM_PART_MARK + '{"type":"step"']);
    expect(changes.at(-1)!.dropped.map((d) => d.reason)).toEqual(['malformed']);
  });

  it('refuses, at encoding, every record the reader would drop', () => {
    expect(encodeStreamPart({ type: 'step', id: 'x'.repeat(129), status: 'done' })).toHaveProperty('problem');
    expect(
      encodeStreamPart({ type: 'tool-call', call_id: 'c', name: 'n', input: { a: Number.NaN } }),
    ).toHaveProperty('problem');
    expect(
      encodeStreamPart({ type: 'reasoning', text: 'y'.repeat(STREAM_PART_LIMITS.RECORD_CHARS) }),
    ).toHaveProperty('problem');
  });
});

// Compatibility, on the UserClient's receiver with real stream crypto.
const backend = defaultSyncBackend();
const seed = new Uint8Array(32).fill(9);
const signing = { publicKey: backend.ed25519PublicKey(seed), privateKey: seed };
const key = new Uint8Array(32).fill(3);
const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64');

function frames(streamId: string, pieces: readonly string[]): Record<string, unknown>[] {
  const cipher = streamCipher(key, streamId);
  const chain = new StreamChain(cipher.chainStart);
  const out: Record<string, unknown>[] = [
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
    const sig = signStream(signing, 'checkpoint', streamId, i + 1, hash);
    out.push({
      type: 'stream.delta',
      stream_id: streamId,
      seq: i + 1,
      ciphertext: b64(cipher.sealDelta(i + 1, frameStreamDelta(text, sig))),
    });
  });
  out.push({
    type: 'stream.end',
    stream_id: streamId,
    final_seq: pieces.length,
    transcript_hash: b64(chain.hash),
    signature: b64(signStreamEnd(signing, streamId, pieces.length, chain.hash)),
  });
  return out;
}

/** A receiver whose key envelope carries `parts` (a new agent) or not (an agent before #26). */
async function receive(
  parts: number | undefined,
  pieces: readonly string[],
  rewrite: (frames: Record<string, unknown>[]) => Record<string, unknown>[] = (f) => f,
): Promise<{ end: StreamEnded; dropped: StreamPartDropped[]; order: string[]; failures: StreamFailure[] }> {
  const order: string[] = [];
  const failures: StreamFailure[] = [];
  const ends: StreamEnded[] = [];
  const dropped: StreamPartDropped[] = [];
  const r = new StreamReceiver({
    openStart: () =>
      Promise.resolve({
        senderId: 'agent',
        messageId: 's1',
        payload: {
          type: 'stream.open',
          v: 2,
          stream_id: 's1',
          key: b64(key),
          ...(parts === undefined ? {} : { parts }),
        },
      }),
    signingKey: () => Promise.resolve(signing.publicKey),
    log: silentLogger,
    clock: systemClock,
    emit: {
      streamStart: () => undefined,
      streamDelta: (d) => void order.push(`delta ${d.seq} ${d.delta}`),
      streamEnd: (e) => void ends.push(e),
      streamError: (f) => void failures.push(f),
      streamPart: (u) => void order.push(`part ${u.seq} ${u.index} ${u.part.type}`),
      streamPartDropped: (d) => void dropped.push(d),
    },
  });
  for (const f of rewrite(frames('s1', pieces))) r.receive(f);
  for (let i = 0; i < 20 && ends.length + failures.length === 0; i += 1)
    await new Promise((resolve) => setTimeout(resolve, 0));
  return { end: ends[0]!, dropped, order, failures };
}

describe('parts compatibility', () => {
  const stream = [
    encodeStreamText('Let me check.'),
    (
      encodeStreamPart({ type: 'tool-call', call_id: 'c1', name: 'weather', input: { city: 'Oslo' } }) as {
        text: string;
      }
    ).text,
    encodeStreamText(' It is cold.'),
  ];

  it('an old, text-only reader of a parts stream shows every text in order, each record on a line of its own', async () => {
    // A receiver that ignores `parts` reads exactly as 0.2.0 does: the stream text as it is.
    const { end } = await receive(undefined, stream);
    expect(end.text).toBe(
      `Let me check.${STREAM_PART_MARK}{"type":"tool-call","call_id":"c1","name":"weather","input":{"city":"Oslo"}}\n It is cold.`,
    );
    expect(end.text.replace(new RegExp(`${STREAM_PART_MARK}[^\\n]*\\n`, 'g'), '')).toBe(
      'Let me check. It is cold.',
    );
  });

  it('a new reader of the same stream shows the text and the parts', async () => {
    const { end } = await receive(1, stream);
    expect(end.text).toBe('Let me check. It is cold.');
    expect(end.parts.map((p: StreamPart) => p.type)).toEqual(['text', 'tool', 'text']);
  });

  it('a new reader of a stream without `parts` (an agent before #26) reads plain text, the mark included', async () => {
    const { end, dropped } = await receive(undefined, [`a${STREAM_PART_MARK}{not a record}\n`, 'b']);
    expect(end.text).toBe(`a${STREAM_PART_MARK}{not a record}\nb`);
    expect(end.parts).toEqual([{ type: 'text', text: end.text }]);
    expect(dropped).toEqual([]);
  });

  it('a bad record in a parts stream is reported with a typed error and the stream ends normally', async () => {
    const { end, dropped } = await receive(1, ['x', `${STREAM_PART_MARK}{"type":"step"}\n`, 'y']);
    expect(end.text).toBe('xy');
    expect(dropped.map((d) => [d.reason, d.error.code, d.seq])).toEqual([
      ['malformed', 'VALIDATION_ERROR', 2],
    ]);
  });

  it('events come in the order written, also inside one delta', async () => {
    const { order } = await receive(1, [stream.join(''), 'and more']);
    expect(order).toEqual([
      'delta 1 Let me check.',
      'part 1 1 tool',
      'delta 1  It is cold.',
      'delta 2 and more',
    ]);
  });

  it('a part sealed by a key holder (her own checkpoint) is never shown: the stream fails with bad_signature', async () => {
    const mallory = new Uint8Array(32).fill(6);
    const her = { publicKey: backend.ed25519PublicKey(mallory), privateKey: mallory };
    const forged = (
      encodeStreamPart({ type: 'tool-call', call_id: 'x', name: 'transfer_funds' }) as { text: string }
    ).text;
    const { order, failures, end } = await receive(1, ['Hello'], (fs) => {
      const cipher = streamCipher(key, 's1');
      const chain = new StreamChain(cipher.chainStart);
      chain.add(1, new TextEncoder().encode('Hello'));
      const hash = chain.add(2, new TextEncoder().encode(forged));
      const sig = signStream(her, 'checkpoint', 's1', 2, hash);
      const sealed = cipher.sealDelta(2, frameStreamDelta(new TextEncoder().encode(forged), sig));
      return [fs[0]!, fs[1]!, { type: 'stream.delta', stream_id: 's1', seq: 2, ciphertext: b64(sealed) }];
    });
    expect(end).toBeUndefined();
    expect(failures.map((f) => [f.reason, f.parts])).toEqual([
      ['bad_signature', [{ type: 'text', text: 'Hello' }]],
    ]);
    expect(order).toEqual(['delta 1 Hello']);
  });
});
