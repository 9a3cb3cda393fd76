import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import type {
  DecisionRefusal,
  AnyAgentEvent,
  ArtifactResponseEvent,
  DecryptFailure,
  DuplicateInfo,
  GovernanceEvent,
  IncomingMessage,
  RelationEvent,
} from '../../../../packages/sdk/src/agent/events.js';
import type { AmsError } from '../../../../packages/sdk/src/core/errors/index.js';
import {
  CryptoError,
  isHandlerError,
  TransportError,
} from '../../../../packages/sdk/src/core/errors/index.js';
import { utf8 } from '../../../../packages/sdk/src/core/encoding.js';
import { generateKeys } from '../../../../packages/sdk/src/crypto/index.js';
import { sealPlaintext } from '../../../../packages/sdk/src/crypto/seal.js';
import { flipByte, offsets, resign } from '../../../fixtures/envelope/tamper.js';
import {
  AGENT_ID,
  bytesOf,
  CONVERSATION,
  createHarness,
  deliveryId,
  USER_ID,
  wireOf,
  type Harness,
} from '../../../helpers/agent-pipeline.js';
import { recordingLogger } from '../../../helpers/agent-world.js';

function collect(h: Harness) {
  const messages: IncomingMessage[] = [];
  const events: AnyAgentEvent[] = [];
  const failures: DecryptFailure[] = [];
  const errors: AmsError[] = [];
  const duplicates: DuplicateInfo[] = [];
  h.emitter.on('message.new', (m) => void messages.push(m));
  h.emitter.on('event', (e) => void events.push(e));
  h.emitter.on('decryptFailure', (f) => void failures.push(f));
  h.emitter.on('error', (e) => void errors.push(e));
  h.emitter.on('duplicate', (d) => void duplicates.push(d));
  return { messages, events, failures, errors, duplicates };
}

function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

describe('event pipeline: typed events', () => {
  it('message.new: signed identity, payload, text and a reply into the same conversation', async () => {
    const h = createHarness();
    const seen = collect(h);
    const wire = h.sealFrom({ type: 'text', text: 'hi' }, { messageId: 'm-1' });
    h.emitter.on('message.new', (m) => m.reply('back'));
    await h.pipeline.ingest(h.sealed('message.new', wire));
    expect(seen.messages).toHaveLength(1);
    expect(seen.messages[0]).toMatchObject({
      type: 'message.new',
      messageId: 'm-1',
      senderId: USER_ID,
      conversationId: CONVERSATION,
      sealed: true,
      transport: 'websocket',
      text: 'hi',
      payload: { type: 'text', text: 'hi' },
    });
    expect(seen.events).toEqual(seen.messages);
    expect(h.sent).toEqual([{ conversationId: CONVERSATION, payload: 'back' }]);
    expect(h.pipeline.stats()).toMatchObject({ received: 1, handled: 1, duplicates: 0 });
  });

  it('relation events must be sealed by system; the user id is typed', async () => {
    // Legacy reading opted into (it is off by default since #24), to show v1.0 is held to the sender rule.
    const h = createHarness({ acceptLegacyV10: true });
    const seen = collect(h);
    const relations: RelationEvent[] = [];
    h.emitter.on('relation.revoked', (e) => void relations.push(e));
    const payload = { type: 'relation.revoked', user_id: USER_ID, conversation_id: CONVERSATION };
    const system = { id: 'system', keys: h.system };
    await h.pipeline.ingest(
      h.sealed('relation.revoked', h.sealFrom(payload, { sender: system, eventType: 'relation.revoked' })),
    );
    expect(relations).toHaveLength(1);
    expect(relations[0]).toMatchObject({ userId: USER_ID, senderId: 'system', payload });
    // The same event signed by a user is refused (typed reason event_type), whatever type it is signed as.
    await h.pipeline.ingest(
      h.sealed('relation.revoked', h.sealFrom(payload, { eventType: 'relation.revoked' })),
    );
    await h.pipeline.ingest(h.sealed('relation.revoked', h.sealFrom(payload)));
    // A legacy v1.0 envelope (no signed type) is held to the sender rule too.
    await h.pipeline.ingest(h.sealed('relation.revoked', h.sealFrom(payload, { version: '1.0' })));
    expect(relations).toHaveLength(1);
    expect(seen.errors).toHaveLength(0);
    expect(seen.failures.map((f) => [f.code, f.reason, f.error.message])).toEqual([
      [
        'DECRYPT_FAILURE',
        'event_type',
        'Envelope could not be opened (event_type check failed: a relation.revoked event must be signed by the system sender)',
      ],
      [
        'DECRYPT_FAILURE',
        'event_type',
        'Envelope could not be opened (event_type check failed: the envelope is signed as message.new, delivered as relation.revoked)',
      ],
      [
        'DECRYPT_FAILURE',
        'event_type',
        'Envelope could not be opened (event_type check failed: a relation.revoked event must be signed by the system sender)',
      ],
    ]);
    expect(h.pipeline.stats().decryptFailuresByReason).toEqual({ event_type: 3 });
  });

  it('a relabelled delivery is refused (event_type) and does not spoil the genuine one (finding 9)', async () => {
    const h = createHarness();
    const seen = collect(h);
    const wire = h.sealFrom({ type: 'text', text: 'approve' }, { messageId: 'm-relabel' });
    await h.pipeline.ingest(h.sealed('artifact_response', wire));
    expect(seen.failures.map((f) => [f.eventType, f.reason])).toEqual([['artifact_response', 'event_type']]);
    await h.pipeline.ingest(h.sealed('message.new', wire));
    expect(seen.events.map((e) => [e.type, e.messageId])).toEqual([['message.new', 'm-relabel']]);
  });

  it('the system sender may not sign other types: a system-signed message.new is refused', async () => {
    const h = createHarness();
    const seen = collect(h);
    const wire = h.sealFrom({ type: 'text', text: 'hi' }, { sender: { id: 'system', keys: h.system } });
    await h.pipeline.ingest(h.sealed('message.new', wire));
    expect(seen.events).toHaveLength(0);
    expect(seen.failures.map((f) => f.error.message)).toEqual([
      'Envelope could not be opened (event_type check failed: the system sender does not sign message.new events)',
    ]);
  });

  it('artifact_response: denied reasons are typed, unknown ones refused', async () => {
    const h = createHarness();
    const seen = collect(h);
    const got: ArtifactResponseEvent[] = [];
    h.emitter.on('artifact_response', (e) => void got.push(e));
    const send = (payload: Record<string, unknown>) =>
      h.pipeline.ingest(
        h.sealed('artifact_response', h.sealFrom(payload, { eventType: 'artifact_response' })),
      );
    await send({ status: 'denied', reason: 'user_timeout' });
    await send({ status: 'accepted' });
    await send({ status: 'denied', reason: 'because' });
    expect(got.map((e) => [e.status, e.deniedReason])).toEqual([
      ['denied', 'user_timeout'],
      ['accepted', undefined],
    ]);
    expect(seen.errors.map((e) => e.code)).toEqual(['VALIDATION_ERROR']);
  });

  it('agent.governance is cleartext; a cleartext message.new is refused', async () => {
    const h = createHarness();
    const seen = collect(h);
    const gov: GovernanceEvent[] = [];
    h.emitter.on('agent.governance', (e) => void gov.push(e));
    await h.pipeline.ingest({
      type: 'agent.governance',
      deliveryId: deliveryId(),
      wireEnvelope: undefined,
      ref: undefined,
      metadata: undefined,
      payload: { agent_id: AGENT_ID, level: 'L1', reason: 'spam' },
    });
    expect(gov).toHaveLength(1);
    expect(gov[0]).toMatchObject({ level: 'L1', reason: 'spam', sealed: false, senderId: 'system' });
    await h.pipeline.ingest({
      type: 'message.new',
      deliveryId: deliveryId(),
      wireEnvelope: undefined,
      ref: undefined,
      metadata: undefined,
      payload: { type: 'text', text: 'plain' },
    });
    expect(seen.messages).toHaveLength(0);
    expect(seen.errors).toHaveLength(1);
  });

  it('events of unknown types reach the catch-all listener with their payload', async () => {
    const h = createHarness();
    const seen = collect(h);
    const payload = { type: 'delivery.failed', message_id: 'x', reason: 'pending_expired' };
    await h.pipeline.ingest(
      h.sealed(
        'delivery.failed',
        h.sealFrom(payload, { sender: { id: 'system', keys: h.system }, eventType: 'delivery.failed' }),
      ),
    );
    expect(seen.events).toHaveLength(1);
    expect(seen.events[0]).toMatchObject({ type: 'delivery.failed', payload });
  });
});

describe('event pipeline: de-duplication', () => {
  it('skips a repeated delivery id and a message repeated under a new delivery id', async () => {
    const h = createHarness();
    const seen = collect(h);
    const wire = h.sealFrom({ type: 'text', text: 'once' });
    const first = h.sealed('message.new', wire);
    await h.pipeline.ingest(first);
    await h.pipeline.ingest(first);
    await h.pipeline.ingest(h.sealed('message.new', wire));
    expect(seen.messages).toHaveLength(1);
    expect(seen.duplicates.map((d) => d.by)).toEqual(['delivery_id', 'message_id']);
    expect(h.pipeline.stats()).toMatchObject({ received: 3, handled: 1, duplicates: 2 });
  });

  it('concurrent copies: one runs, the other is skipped while it is in flight', async () => {
    const h = createHarness();
    const seen = collect(h);
    const g = gate();
    h.emitter.on('message.new', () => g.promise);
    const ev = h.sealed('message.new', h.sealFrom({ type: 'text', text: 'x' }));
    const a = h.pipeline.ingest(ev);
    const b = h.pipeline.ingest(ev);
    for (let i = 0; i < 50 && seen.duplicates.length === 0; i++) await Promise.resolve();
    expect(seen.duplicates).toEqual([
      { deliveryId: ev.deliveryId, messageId: undefined, by: 'delivery_id', transport: 'websocket' },
    ]);
    g.open();
    await Promise.all([a, b]);
    expect(seen.messages).toHaveLength(1);
    expect(seen.duplicates).toHaveLength(1);
  });
});

describe('event pipeline: decrypt failures', () => {
  it('each reason is typed and counted; the message is discarded, the next one handled', async () => {
    const h = createHarness();
    const seen = collect(h);
    const good = bytesOf(h.sealFrom({ type: 'text', text: 'ok' }));
    const at = offsets(good);
    const stranger = generateKeys();
    const opts = {
      sender: { id: USER_ID, signing: h.user.signing },
      recipients: [{ id: AGENT_ID, publicKey: h.agentKeys.encryption.publicKey }],
      conversationId: CONVERSATION,
    };
    const bad = [
      h.sealFrom({ type: 'text', text: 'x' }, { sender: { id: USER_ID, keys: stranger } }), // signature
      h.sealFrom({ type: 'text', text: 'x' }, { to: stranger.encryption.publicKey }), // no_wrap
      wireOf(resign(flipByte(good, at.wraps + 3), h.user.signing)), // unwrap
      wireOf(resign(flipByte(good, at.ciphertext + 2), h.user.signing)), // aead
      wireOf(sealPlaintext(utf8('not json'), opts)), // parse
      wireOf(utf8('AMS? definitely not an envelope')), // INVALID_ENVELOPE
    ];
    for (const wire of bad) await h.pipeline.ingest(h.sealed('message.new', wire));
    await h.pipeline.ingest(h.sealed('message.new', h.sealFrom({ type: 'text', text: 'after' })));
    expect(seen.failures.map((f) => [f.code, f.reason])).toEqual([
      ['DECRYPT_FAILURE', 'signature'],
      ['DECRYPT_FAILURE', 'no_wrap'],
      ['DECRYPT_FAILURE', 'unwrap'],
      ['DECRYPT_FAILURE', 'aead'],
      ['DECRYPT_FAILURE', 'parse'],
      ['INVALID_ENVELOPE', undefined],
    ]);
    expect(seen.failures[0]).toMatchObject({ transport: 'websocket', conversationId: CONVERSATION });
    expect(seen.messages.map((m) => m.text)).toEqual(['after']);
    expect(h.pipeline.stats()).toMatchObject({
      decryptFailures: 6,
      decryptFailuresByReason: {
        signature: 1,
        no_wrap: 1,
        unwrap: 1,
        aead: 1,
        parse: 1,
        invalid_envelope: 1,
      },
      handled: 1,
    });
    expect(seen.errors).toEqual([]);
  });

  it('a stale sender key is looked up again once before the signature counts as failed', async () => {
    const h = createHarness();
    const seen = collect(h);
    const fresh = generateKeys();
    h.onInvalidate = (id) => h.directory.set(id, fresh.signing.publicKey);
    const wire = h.sealFrom({ type: 'text', text: 'rotated' }, { sender: { id: USER_ID, keys: fresh } });
    await h.pipeline.ingest(h.sealed('message.new', wire));
    expect(h.invalidated).toEqual([USER_ID]);
    expect(seen.messages.map((m) => m.text)).toEqual(['rotated']);
  });

  it('a sender-key lookup that fails transiently is an error, not a decrypt failure, and the claim is released', async () => {
    const h = createHarness();
    const seen = collect(h);
    h.failLookups = new TransportError({ code: 'TRANSPORT_NETWORK', message: 'down' });
    const ev = h.sealed('message.new', h.sealFrom({ type: 'text', text: 'later' }));
    await h.pipeline.ingest(ev);
    expect(seen.failures).toEqual([]);
    expect(seen.errors.map((e) => e.code)).toEqual(['TRANSPORT_NETWORK']);
    expect(h.pipeline.stats().failed).toBe(1);
    h.failLookups = undefined;
    await h.pipeline.ingest(ev); // the same delivery again: handled now
    expect(seen.messages.map((m) => m.text)).toEqual(['later']);
  });

  it('a key change refused by the pins (KEY_CHANGED) is reported as itself, not as a signature failure', async () => {
    const h = createHarness();
    const seen = collect(h);
    h.failLookups = new CryptoError({ code: 'KEY_CHANGED', message: 'changed' });
    await h.pipeline.ingest(h.sealed('message.new', h.sealFrom({ type: 'text', text: 'x' })));
    expect(seen.failures).toEqual([]);
    expect(seen.errors.map((e) => e.code)).toEqual(['KEY_CHANGED']);
  });

  it('a retired key opens messages during its grace, not after', async () => {
    const h = createHarness();
    const seen = collect(h);
    const old = h.agentKeys.encryption.publicKey;
    h.ring = h.ring.rotate(generateKeys(), h.clock.now(), 60_000);
    await h.pipeline.ingest(
      h.sealed('message.new', h.sealFrom({ type: 'text', text: 'old key' }, { to: old })),
    );
    h.clock.advance(60_000);
    await h.pipeline.ingest(
      h.sealed('message.new', h.sealFrom({ type: 'text', text: 'too late' }, { to: old })),
    );
    expect(seen.messages.map((m) => m.text)).toEqual(['old key']);
    expect(seen.failures.map((f) => f.reason)).toEqual(['no_wrap']);
  });
});

describe('event pipeline: refs', () => {
  it('fetches the object, checks it against the ref, then opens it', async () => {
    const h = createHarness();
    const seen = collect(h);
    const bytes = bytesOf(h.sealFrom({ type: 'text', text: 'big' }));
    h.objects.set('obj_1', { bytes, contentType: 'application/octet-stream', size: bytes.length });
    const ref = {
      type: 'r2' as const,
      object_key: 'obj_1',
      size: bytes.length,
      content_type: 'application/octet-stream',
    };
    const ev = { ...h.sealed('message.new', ''), wireEnvelope: undefined, ref };
    await h.pipeline.ingest(ev);
    expect(seen.messages.map((m) => m.text)).toEqual(['big']);
    // A size mismatch is a failure before anything is decrypted; the claim is released.
    const wrong = { ...ev, deliveryId: deliveryId(), ref: { ...ref, size: bytes.length + 1 } };
    await h.pipeline.ingest(wrong);
    expect(seen.errors.map((e) => e.code)).toEqual(['TRANSPORT_BAD_RESPONSE']);
    expect(h.store.claim(wrong.deliveryId!, 10).status).toBe('claimed');
  });
});

describe('event pipeline: handlers and ordering', () => {
  it('a handler error reaches the error channel with the event; the conversation goes on', async () => {
    const h = createHarness();
    const seen = collect(h);
    const boom = new Error('handler bug');
    h.emitter.on('message.new', (m) => {
      if (m.text === 'bad') throw boom;
    });
    await h.pipeline.ingest(h.sealed('message.new', h.sealFrom({ type: 'text', text: 'bad' })));
    await h.pipeline.ingest(h.sealed('message.new', h.sealFrom({ type: 'text', text: 'good' })));
    expect(seen.messages.map((m) => m.text)).toEqual(['bad', 'good']);
    expect(seen.errors).toHaveLength(1);
    const err = seen.errors[0]!;
    expect(isHandlerError(err)).toBe(true);
    expect(err.cause).toBe(boom);
    expect((err as { event?: IncomingMessage }).event?.text).toBe('bad');
    expect(err.message).not.toContain('bad');
    expect(h.pipeline.stats()).toMatchObject({ handled: 2, handlerErrors: 1 });
  });

  it("HANDLER_FAILED carries the handler's own error: message, cause and stack; the event is not printed", async () => {
    const h = createHarness();
    const seen = collect(h);
    h.emitter.on('message.new', () => {
      throw new TypeError('cannot read x of undefined');
    });
    await h.pipeline.ingest(h.sealed('message.new', h.sealFrom({ type: 'text', text: 'secret plaintext' })));
    const err = seen.errors[0]!;
    expect(err.message).toBe('A message.new handler threw: TypeError: cannot read x of undefined');
    expect((err.cause as Error).stack).toContain('pipeline.test.ts');
    const printed = inspect(err);
    expect(printed).toContain('cannot read x of undefined');
    expect(printed).toContain('[cause]');
    expect(printed).not.toContain('secret plaintext');
  });

  it('without an error listener, a handler error is logged at error level with its stack', async () => {
    const log = recordingLogger();
    const h = createHarness({ logger: log });
    h.emitter.on('message.new', () => {
      throw new RangeError('off by one');
    });
    await h.pipeline.ingest(h.sealed('message.new', h.sealFrom({ type: 'text', text: 'hi' })));
    const line = log.lines.find((l) => l.startsWith('error '));
    expect(line).toContain('A message.new handler threw: RangeError: off by one');
    expect(line).toContain('HANDLER_FAILED');
    expect(line).toContain('pipeline.test.ts');
  });

  it('a stuck handler in one conversation does not stall another', async () => {
    const h = createHarness({ concurrency: 4 });
    const g = gate();
    const done: string[] = [];
    h.emitter.on('message.new', async (m) => {
      if (m.conversationId === 'stuck') await g.promise;
      done.push(`${m.conversationId}:${m.text}`);
    });
    const stuck = h.pipeline.ingest(
      h.sealed('message.new', h.sealFrom({ type: 'text', text: '1' }, { conversationId: 'stuck' }), {
        conversationId: 'stuck',
      }),
    );
    for (const text of ['a', 'b']) {
      await h.pipeline.ingest(
        h.sealed('message.new', h.sealFrom({ type: 'text', text }, { conversationId: 'free' }), {
          conversationId: 'free',
        }),
      );
    }
    expect(done).toEqual(['free:a', 'free:b']);
    g.open();
    await stuck;
    expect(done).toEqual(['free:a', 'free:b', 'stuck:1']);
  });

  it('keeps arrival order within a conversation even when a later event is ready first', async () => {
    const h = createHarness();
    const seen = collect(h);
    const fetchGate = gate();
    const bytes = bytesOf(h.sealFrom({ type: 'text', text: 'first (slow ref)' }));
    h.objects.set('slow', { bytes, contentType: 'application/octet-stream', size: bytes.length });
    const slow = {
      ...h.sealed('message.new', ''),
      wireEnvelope: undefined,
      ref: {
        type: 'r2' as const,
        object_key: 'slow',
        size: bytes.length,
        content_type: 'application/octet-stream',
      },
    };
    const original = (
      h.pipeline as unknown as { fetchRef: (r: unknown) => Promise<Uint8Array> }
    ).fetchRef.bind(h.pipeline);
    (h.pipeline as unknown as { fetchRef: (r: unknown) => Promise<Uint8Array> }).fetchRef = async (r) => {
      await fetchGate.promise;
      return original(r);
    };
    const first = h.pipeline.ingest(slow);
    const second = h.pipeline.ingest(h.sealed('message.new', h.sealFrom({ type: 'text', text: 'second' })));
    for (let i = 0; i < 20; i++) await Promise.resolve();
    expect(seen.messages).toEqual([]);
    fetchGate.open();
    await Promise.all([first, second]);
    expect(seen.messages.map((m) => m.text)).toEqual(['first (slow ref)', 'second']);
  });

  it('drain: waits for handlers; after the timeout, unstarted events are dropped and their claims released', async () => {
    const h = createHarness({ concurrency: 1 });
    const g = gate();
    h.emitter.on('message.new', () => g.promise);
    const a = h.sealed('message.new', h.sealFrom({ type: 'text', text: 'a' }));
    const b = h.sealed('message.new', h.sealFrom({ type: 'text', text: 'b' }));
    const runA = h.pipeline.ingest(a);
    const runB = h.pipeline.ingest(b);
    for (let i = 0; i < 50; i++) await Promise.resolve();
    const drained = h.pipeline.drain(5_000);
    h.clock.advance(5_000);
    expect(await drained).toEqual({ drained: false, abandoned: 1 });
    expect(await runB).toBe('dropped');
    expect(h.store.claim(b.deliveryId!, 10).status).toBe('claimed');
    g.open();
    expect(await runA).toBe('handled');
    expect(await h.pipeline.drain(1)).toEqual({ drained: true, abandoned: 0 });
  });
});

describe('event pipeline: the vet step (human decisions)', () => {
  it('a refused decision reaches no handler, on the WebSocket and the webhook path; other types never wait for it', async () => {
    const vetted: string[] = [];
    const h = createHarness({
      vet: (event) => {
        vetted.push(event.type);
        return Promise.resolve({ reason: 'unsigned', subject: 'g1' });
      },
    });
    const seen = collect(h);
    const refusals: DecisionRefusal[] = [];
    h.emitter.on('decisionRefused', (r) => refusals.push(r));
    const payload = { grant_id: 'g1', scope: 'profile.read', user_id: USER_ID };
    const system = { id: 'system', keys: h.system };
    const ws = h.sealFrom(payload, { sender: system, eventType: 'grant.revoked' });
    expect(await h.pipeline.ingest(h.sealed('grant.revoked', ws))).toBe('skipped');
    const hook = h.sealFrom(payload, { sender: system, eventType: 'grant.revoked' });
    const inbound = h.sealed('grant.revoked', hook);
    expect(
      await h.pipeline.handleOpened(inbound, inbound.deliveryId!, await h.pipeline.open(hook, false)),
    ).toBe('done');
    expect(refusals.map((r) => [r.transport, r.reason, r.subject, r.error.code])).toEqual([
      ['websocket', 'unsigned', 'g1', 'DECISION_REFUSED'],
      ['webhook', 'unsigned', 'g1', 'DECISION_REFUSED'],
    ]);
    expect(seen.events).toEqual([]);
    await h.pipeline.ingest(h.sealed('message.new', h.sealFrom({ type: 'text', text: 'hi' })));
    expect(seen.messages).toHaveLength(1);
    expect(vetted).toEqual(['grant.revoked', 'grant.revoked']);
    expect(h.pipeline.stats()).toMatchObject({ invalid: 2, handled: 1 });
  });
});
