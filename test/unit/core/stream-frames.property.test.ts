/**
 * The stream frame parsers (`core/protocol/stream-frames.ts`) with malformed
 * input: never a throw, only a typed frame or `undefined`; valid frames
 * survive a JSON round trip; any single field broken is refused.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  AgentStreamFrameSchema,
  parseAgentStreamFrame,
  parseServiceStreamFrame,
  parseUserStreamFrame,
  StreamDeltaBatchSchema,
  UserStreamFrameSchema,
} from '../../../packages/sdk/src/core/protocol/stream-frames.js';

const b64 = (n: number) =>
  fc.uint8Array({ minLength: n, maxLength: n }).map((b) => Buffer.from(b).toString('base64'));
const streamId = fc.stringMatching(/^[A-Za-z0-9_-]{1,64}$/);
const seq = fc.integer({ min: 1, max: 1_000_000 });

const validAgentFrame = fc.oneof(
  fc.record({
    type: fc.constant('stream.start'),
    stream_id: streamId,
    conversation_id: fc.uuid(),
    wire_envelope: b64(40),
  }),
  fc.record({ type: fc.constant('stream.delta'), stream_id: streamId, seq, ciphertext: b64(17) }),
  fc.record({
    type: fc.constant('stream.end'),
    stream_id: streamId,
    final_seq: fc.integer({ min: 0, max: 1_000_000 }),
    transcript_hash: b64(32),
    signature: b64(64),
  }),
  fc.record({ type: fc.constant('stream.abort'), stream_id: streamId, ciphertext: b64(20) }),
);

const junk = fc.oneof(
  fc.anything(),
  fc.jsonValue(),
  fc.dictionary(fc.string(), fc.jsonValue()),
  fc.record({
    type: fc.constantFrom('stream.start', 'stream.delta', 'stream.end', 'stream.abort', 'stream.error'),
    stream_id: fc.anything(),
  }),
);

describe('stream frame parsers', () => {
  it('never throw on arbitrary input', () => {
    fc.assert(
      fc.property(junk, (value) => {
        for (const parse of [parseAgentStreamFrame, parseUserStreamFrame, parseServiceStreamFrame]) {
          const out = parse(value);
          expect(out === undefined || typeof out === 'object').toBe(true);
        }
      }),
    );
  });

  it('accept every valid agent frame, also after a JSON round trip', () => {
    fc.assert(
      fc.property(validAgentFrame, (frame) => {
        expect(parseAgentStreamFrame(frame)).toEqual(frame);
        expect(parseAgentStreamFrame(JSON.parse(JSON.stringify(frame)))).toEqual(frame);
      }),
    );
  });

  it('refuse a frame with any one field replaced by a wrong value', () => {
    const wrong = fc.oneof(
      fc.constant(null),
      fc.constant(-1),
      fc.constant(1.5),
      fc.constant('not base64!'),
      fc.constant(''),
      fc.constant({}),
      fc.string({ minLength: 65 }).map((s) => s.padEnd(65, 'x')),
    );
    fc.assert(
      fc.property(validAgentFrame, wrong, fc.nat(), (frame, bad, pick) => {
        const keys = Object.keys(frame).filter((k) => k !== 'type');
        const key = keys[pick % keys.length]!;
        const broken = { ...frame, [key]: bad };
        // Any non-empty string without control characters is a valid conversation id.
        fc.pre(!(key === 'conversation_id' && typeof bad === 'string' && bad !== ''));
        expect(parseAgentStreamFrame(broken)).toBeUndefined();
      }),
    );
  });

  it('refuse unknown fields in agent frames and out-of-range sequence numbers', () => {
    const delta = {
      type: 'stream.delta',
      stream_id: 's',
      seq: 1,
      ciphertext: Buffer.alloc(17).toString('base64'),
    };
    expect(parseAgentStreamFrame(delta)).toEqual(delta);
    expect(parseAgentStreamFrame({ ...delta, extra: 1 })).toBeUndefined();
    expect(parseAgentStreamFrame({ ...delta, seq: 0 })).toBeUndefined();
    expect(parseAgentStreamFrame({ ...delta, seq: 1_000_001 })).toBeUndefined();
    expect(
      parseAgentStreamFrame({ ...delta, ciphertext: Buffer.alloc(15).toString('base64') }),
    ).toBeUndefined();
    expect(parseAgentStreamFrame({ ...delta, stream_id: 'a/b' })).toBeUndefined();
  });

  it('decide a delta frame exactly as the zod schemas do (the hand-written fast path agrees on edge cases)', () => {
    const nearDelta = fc.record(
      {
        type: fc.constantFrom('stream.delta', 'stream.delta ', 'stream.end'),
        stream_id: fc.oneof(
          streamId,
          fc.constantFrom('', 'a'.repeat(64), 'a'.repeat(65), 'a/b', 'é'),
          fc.integer(),
        ),
        seq: fc.oneof(seq, fc.constantFrom(0, -1, 1, 1.5, 1_000_000, 1_000_001, Number.NaN, Infinity, '1')),
        ciphertext: fc.oneof(
          fc.integer({ min: 0, max: 24 }).chain(b64),
          fc.constantFrom(
            'AAAAAAAAAAAAAAAAAAAAAA==',
            'AAAAAAAAAAAAAAAAAAAAAB==',
            'AAAA AAAAAAAAAAAAAAAAAAA',
            '',
            'A'.repeat(10_948),
          ),
          fc.string(),
        ),
        extra: fc.jsonValue(),
      },
      { requiredKeys: ['type'] },
    );
    fc.assert(
      fc.property(nearDelta, (frame) => {
        const viaJson: unknown = JSON.parse(JSON.stringify(frame));
        for (const value of [frame, viaJson]) {
          const agent = AgentStreamFrameSchema.safeParse(value);
          expect(parseAgentStreamFrame(value)).toEqual(agent.success ? agent.data : undefined);
          const user = UserStreamFrameSchema.safeParse(value);
          expect(parseUserStreamFrame(value)).toEqual(user.success ? user.data : undefined);
        }
      }),
      { numRuns: 2_000 },
    );
  });

  it('take service errors only with one of the five stream error values', () => {
    fc.assert(
      fc.property(fc.string(), (reason) => {
        const parsed = parseServiceStreamFrame({ type: 'stream.error', stream_id: 's', reason });
        const known = ['stream_timeout', 'orphan_detected', 'client_offline', 'peer_revoked', 'rate_limited'];
        expect(parsed !== undefined).toBe(known.includes(reason));
      }),
    );
  });

  it('bound a REST batch to 1…256 deltas', () => {
    const d = { seq: 1, ciphertext: Buffer.alloc(16).toString('base64') };
    expect(StreamDeltaBatchSchema.safeParse({ deltas: [] }).success).toBe(false);
    expect(StreamDeltaBatchSchema.safeParse({ deltas: Array(256).fill(d) }).success).toBe(true);
    expect(StreamDeltaBatchSchema.safeParse({ deltas: Array(257).fill(d) }).success).toBe(false);
  });
});
