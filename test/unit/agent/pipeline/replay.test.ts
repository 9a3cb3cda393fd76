import { describe, expect, it } from 'vitest';
import type {
  DecryptFailure,
  DuplicateInfo,
  IncomingMessage,
} from '../../../../packages/sdk/src/agent/events.js';
import {
  MAX_CLOCK_SKEW_MS,
  MAX_ENVELOPE_AGE_MS,
  MESSAGE_DEDUP_MEMORY_MS,
} from '../../../../packages/sdk/src/crypto/freshness.js';
import { LIMITS } from '../../../../packages/sdk/src/core/limits.js';
import { generateKeys } from '../../../../packages/sdk/src/crypto/keys.js';
import { createHarness, USER_ID, type Harness } from '../../../helpers/agent-pipeline.js';

const HOUR = 3_600_000;

function collect(h: Harness) {
  const messages: IncomingMessage[] = [];
  const failures: DecryptFailure[] = [];
  const duplicates: DuplicateInfo[] = [];
  h.emitter.on('message.new', (m) => void messages.push(m));
  h.emitter.on('decryptFailure', (f) => void failures.push(f));
  h.emitter.on('duplicate', (d) => void duplicates.push(d));
  return { messages, failures, duplicates };
}

describe('replay protection: the acceptance window (virtual time)', () => {
  it('is 24 h (the pending queue) + 5 min back, 5 min ahead; ids are remembered longer than any envelope stays acceptable', () => {
    expect(MAX_CLOCK_SKEW_MS).toBe(5 * 60_000);
    expect(MAX_ENVELOPE_AGE_MS).toBe(LIMITS.PENDING_QUEUE_TTL_MS + MAX_CLOCK_SKEW_MS);
    expect(MESSAGE_DEDUP_MEMORY_MS).toBe(25 * HOUR);
    expect(MESSAGE_DEDUP_MEMORY_MS).toBeGreaterThanOrEqual(MAX_ENVELOPE_AGE_MS + MAX_CLOCK_SKEW_MS);
  });

  it('a message delivered twice within the window is handled once; replayed 25 h later it is refused as stale', async () => {
    const h = createHarness();
    const seen = collect(h);
    const wire = h.sealFrom({ type: 'text', text: 'approve' }, { messageId: 'm-approve' });
    await h.pipeline.ingest(h.sealed('message.new', wire));
    h.clock.advance(HOUR);
    await h.pipeline.ingest(h.sealed('message.new', wire));
    h.clock.advance(24 * HOUR);
    await h.pipeline.ingest(h.sealed('message.new', wire));
    expect(seen.messages.map((m) => m.messageId)).toEqual(['m-approve']);
    expect(seen.duplicates.map((d) => [d.messageId, d.by])).toEqual([['m-approve', 'message_id']]);
    expect(seen.failures.map((f) => [f.code, f.reason, f.error.message])).toEqual([
      [
        'DECRYPT_FAILURE',
        'stale',
        'Envelope could not be opened (stale check failed: created_at is too old)',
      ],
    ]);
    expect(h.pipeline.stats().decryptFailuresByReason).toEqual({ stale: 1 });
  });

  it('a delivery that waited the full 24 h in the pending queue (+ skew) is accepted; 1 ms older is not', async () => {
    const h = createHarness();
    const seen = collect(h);
    const created = new Date(h.clock.now()).toISOString();
    const a = h.sealFrom({ type: 'text', text: 'a' }, { messageId: 'a', createdAt: created });
    const b = h.sealFrom({ type: 'text', text: 'b' }, { messageId: 'b', createdAt: created });
    h.clock.advance(MAX_ENVELOPE_AGE_MS);
    await h.pipeline.ingest(h.sealed('message.new', a));
    h.clock.advance(1);
    await h.pipeline.ingest(h.sealed('message.new', b));
    expect(seen.messages.map((m) => m.messageId)).toEqual(['a']);
    expect(seen.failures.map((f) => [f.reason, f.error.message])).toEqual([
      ['stale', 'Envelope could not be opened (stale check failed: created_at is too old)'],
    ]);
  });

  it('a created_at up to 5 min ahead is accepted; further ahead is refused', async () => {
    const h = createHarness();
    const seen = collect(h);
    const at = (ms: number) => new Date(h.clock.now() + ms).toISOString();
    const ok = h.sealFrom(
      { type: 'text', text: 'ok' },
      { messageId: 'ok', createdAt: at(MAX_CLOCK_SKEW_MS) },
    );
    const late = h.sealFrom(
      { type: 'text', text: 'no' },
      { messageId: 'no', createdAt: at(MAX_CLOCK_SKEW_MS + 1) },
    );
    await h.pipeline.ingest(h.sealed('message.new', ok));
    await h.pipeline.ingest(h.sealed('message.new', late));
    expect(seen.messages.map((m) => m.messageId)).toEqual(['ok']);
    expect(seen.failures.map((f) => f.error.message)).toEqual([
      'Envelope could not be opened (stale check failed: created_at is too far in the future)',
    ]);
  });

  it('an envelope dated 5 min ahead is still a duplicate at the very end of its window (24 h 10 min later)', async () => {
    const h = createHarness();
    const seen = collect(h);
    const ahead = new Date(h.clock.now() + MAX_CLOCK_SKEW_MS).toISOString();
    const wire = h.sealFrom({ type: 'text', text: 'x' }, { messageId: 'ahead', createdAt: ahead });
    await h.pipeline.ingest(h.sealed('message.new', wire));
    h.clock.advance(MAX_ENVELOPE_AGE_MS + MAX_CLOCK_SKEW_MS);
    await h.pipeline.ingest(h.sealed('message.new', wire));
    expect(seen.messages).toHaveLength(1);
    expect(seen.duplicates.map((d) => d.by)).toEqual(['message_id']);
    expect(seen.failures).toEqual([]);
  });
});

describe('retired signing keys (finding 4, as the UserClient)', () => {
  it('a retired signing key verifies only messages created before its retirement', async () => {
    const h = createHarness();
    const seen = collect(h);
    const old = h.user;
    const before = h.sealFrom({ type: 'text', text: 'a' }, { messageId: 'before' });
    h.clock.advance(60_000);
    // The user rotates: the directory now answers the new key, the old one is retired now.
    const fresh = generateKeys();
    h.directory.set(USER_ID, fresh.signing.publicKey);
    h.retiredSigning.set(USER_ID, [{ key: old.signing.publicKey, retiredAtMs: h.clock.now() }]);
    h.clock.advance(1);
    const after = h.sealFrom({ type: 'text', text: 'b' }, { messageId: 'after' });
    await h.pipeline.ingest(h.sealed('message.new', before));
    await h.pipeline.ingest(h.sealed('message.new', after));
    expect(seen.messages.map((m) => m.messageId)).toEqual(['before']);
    expect(seen.failures.map((f) => [f.code, f.reason])).toEqual([['DECRYPT_FAILURE', 'signature']]);
  });
});

describe('legacy v1.0 envelopes (acceptLegacyV10)', () => {
  it('are refused as INVALID_ENVELOPE by default and when false (#24), opened only on explicit opt-in', async () => {
    for (const accept of [undefined, false, true]) {
      const h = createHarness(accept === undefined ? {} : { acceptLegacyV10: accept });
      const seen = collect(h);
      await h.pipeline.ingest(
        h.sealed('message.new', h.sealFrom({ type: 'text', text: 'old' }, { version: '1.0' })),
      );
      await h.pipeline.ingest(h.sealed('message.new', h.sealFrom({ type: 'text', text: 'new' })));
      expect(seen.messages.map((m) => m.text)).toEqual(accept === true ? ['old', 'new'] : ['new']);
      expect(seen.failures.map((f) => [f.code, f.error.message])).toEqual(
        accept === true
          ? []
          : [['INVALID_ENVELOPE', 'Invalid envelope: legacy v1.0 envelopes are not accepted']],
      );
    }
  });
});
