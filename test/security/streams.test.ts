/**
 * Streams against a hostile service and a hostile group member (#24, items 4,
 * 5 and part of 11). The relay plays the service; "Mallory" is a member the
 * service slips into the conversation (a key of its own listed as a member):
 * once the agent sealed a stream key to her, she holds the key every member
 * holds, but not the agent's signing key.
 *
 * - a member the service adds gets no stream key without `membersChanged`,
 *   and none at all under `'block'` (`MEMBERS_CHANGED`, as for `send()`);
 * - a delta Mallory seals under the stream key is refused (`bad_signature`)
 *   before any of its text is shown;
 * - an abort Mallory seals is refused (`bad_signature`, her reason never shown);
 * - a finished stream replayed to a restarted client with a persistent
 *   replay store is refused (`replayed`);
 * - a stream the relay never ends ends by the client's own deadline (`deadline`).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MembersChangedEvent } from '../../packages/sdk/src/agent/index.js';
import {
  MemoryStreamReplayStore,
  type StreamDelta,
  type StreamEnded,
  type StreamFailure,
  type UserClient,
} from '../../packages/sdk/src/client/index.js';
import { systemClock } from '../../packages/sdk/src/core/clock.js';
import { isCryptoError } from '../../packages/sdk/src/core/errors/guards.js';
import { concatBytes, toBase64, utf8 } from '../../packages/sdk/src/core/encoding.js';
import { generateKeys, openAsync } from '../../packages/sdk/src/crypto/index.js';
import {
  frameStreamDelta,
  streamCipher,
  type StreamCipher,
} from '../../packages/sdk/src/crypto/stream/stream-crypto.js';
import { ACCOUNT_PASSWORD, nextEvent, PROTECTION_PASSWORD } from '../helpers/client-setup.js';
import { answer, DROP, type RelaySocket } from '../helpers/hostile-relay.js';
import { errorBody } from '../helpers/transport-rest.js';
import { startSecurityWorld, type SecurityWorld } from './world.js';

type Frame = Record<string, unknown>;
const isFrame = (f: unknown, type: string): f is Frame =>
  typeof f === 'object' && f !== null && (f as Frame)['type'] === type;

/** A key pair of Mallory's, listed by the relay as a member of the conversation. */
function mallory(): { id: string; keys: ReturnType<typeof generateKeys>; wire: Frame } {
  const keys = generateKeys();
  const id = randomUUID();
  return {
    id,
    keys,
    wire: {
      id,
      kind: 'user',
      public_key: toBase64(keys.encryption.publicKey),
      signing_public_key: toBase64(keys.signing.publicKey),
    },
  };
}

/** The agent's signing key as the service lists it (Mallory verifies the key envelope with it). */
const agentSigningKeys = new Map<string, Uint8Array>();

/** The relay lists `member` in the conversation from now on, and answers for its keys. */
function addGhostMember(world: SecurityWorld, member: Frame): void {
  world.relay.onResponse = (method, path, json) => {
    if (method === 'GET' && path === `/conversations/${world.conversationId}`) {
      const detail = (json as { data: { members: Frame[] } }).data;
      const agent = detail.members.find((x) => x['id'] === world.agentId);
      if (typeof agent?.['signing_public_key'] === 'string')
        agentSigningKeys.set(
          world.agentId,
          new Uint8Array(Buffer.from(agent['signing_public_key'], 'base64')),
        );
      if (!detail.members.some((x) => x['id'] === member['id']))
        return { data: { ...detail, members: [...detail.members, member] } };
    }
    if (method === 'GET' && path === `/keys/${String(member['id'])}`) return { data: member };
    return json;
  };
}

/**
 * Makes the agent fetch the members again: the relay answers its next send
 * with `CONVERSATION_FORBIDDEN` (the agent drops the cached conversation), then
 * passes everything on.
 */
async function forceMemberRefetch(world: SecurityWorld): Promise<void> {
  const before = world.relay.onResponse;
  let refused = false;
  world.relay.onResponse = (method, path, json) => {
    if (!refused && method === 'POST' && path.includes('/messages')) {
      refused = true;
      return answer(403, errorBody('CONVERSATION_FORBIDDEN'));
    }
    return before === undefined ? json : before(method, path, json);
  };
  await expect(world.agent.send(world.conversationId, 'refused by the relay')).rejects.toThrow();
  world.relay.onResponse = before;
}

/** Waits (real time, up to 5 s) until `done()`. */
async function waitFor(done: () => boolean): Promise<void> {
  for (let waited = 0; !done() && waited < 5_000; waited += 10) await new Promise((r) => setTimeout(r, 10));
  expect(done()).toBe(true);
}

/** Records the user's stream events. */
function streamEvents(client: UserClient): {
  deltas: StreamDelta[];
  ends: StreamEnded[];
  failures: StreamFailure[];
  failed: Promise<StreamFailure>;
} {
  const deltas: StreamDelta[] = [];
  const ends: StreamEnded[] = [];
  const failures: StreamFailure[] = [];
  let resolve: (f: StreamFailure) => void = () => undefined;
  const failed = new Promise<StreamFailure>((r) => (resolve = r));
  client.on('streamDelta', (d) => deltas.push(d));
  client.on('streamEnd', (e) => ends.push(e));
  client.on('streamError', (f) => {
    failures.push(f);
    resolve(f);
  });
  return { deltas, ends, failures, failed };
}

/** Opens the stream key Mallory received (she is a recipient of the `stream.start` envelope). */
async function malloryCipher(
  world: SecurityWorld,
  m: ReturnType<typeof mallory>,
  start: Frame,
): Promise<StreamCipher> {
  const opened = await openAsync(String(start['wire_envelope']), {
    recipientId: m.id,
    keys: [m.keys.encryption],
    senderKey: agentSigningKeys.get(world.agentId)!,
  });
  const key = Buffer.from(String(opened.payload['key']), 'base64');
  return streamCipher(new Uint8Array(key), String(start['stream_id']));
}

describe('streams go through the member watch', () => {
  let world: SecurityWorld;
  const changes: MembersChangedEvent[] = [];
  beforeAll(async () => {
    world = await startSecurityWorld({ agent: { keyChangePolicy: 'block' } });
    world.agent.on('membersChanged', (e) => changes.push(e));
  });
  afterAll(async () => world.close());

  it("under 'block', a member the service adds gets no stream key: the stream is refused with MEMBERS_CHANGED", async () => {
    await world.agent.send(world.conversationId, 'first contact'); // the member set is trusted on first use
    const m = mallory();
    addGhostMember(world, m.wire);
    await forceMemberRefetch(world);
    const starts: Frame[] = [];
    world.relay.onClientFrame = (f) => (isFrame(f, 'stream.start') && starts.push(f), f);

    const refused = await world.agent.stream(world.conversationId).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(isCryptoError(refused) && refused.code).toBe('MEMBERS_CHANGED');
    expect(starts).toEqual([]); // no stream key left the agent
    expect(changes).toContainEqual({
      conversationId: world.conversationId,
      added: [m.id],
      removed: [],
      unsigned: [],
      blocked: true,
    });
    // confirmMembers() accepts them explicitly, as for send().
    expect(world.agent.confirmMembers(world.conversationId)).toBe(true);
    const w = await world.agent.stream(world.conversationId);
    await w.end('now sealed to the confirmed members');
    expect(starts).toHaveLength(1);
  });
});

describe('a member holding the stream key cannot speak as the agent', () => {
  let world: SecurityWorld;
  const m = mallory();
  const changes: MembersChangedEvent[] = [];
  beforeAll(async () => {
    world = await startSecurityWorld();
    world.agent.on('membersChanged', (e) => changes.push(e));
    await world.agent.send(world.conversationId, 'first contact');
    addGhostMember(world, m.wire);
    await forceMemberRefetch(world);
  });
  afterAll(async () => world.close());

  /** Opens a stream; Mallory learns its key from the `stream.start` the relay carried. */
  async function openWatched(): Promise<{
    writer: Awaited<ReturnType<SecurityWorld['agent']['stream']>>;
    cipher: StreamCipher;
    userSocket: Promise<RelaySocket>;
  }> {
    let start: Frame | undefined;
    let found: (s: RelaySocket) => void = () => undefined;
    const userSocket = new Promise<RelaySocket>((r) => (found = r));
    world.relay.onClientFrame = (f) => (isFrame(f, 'stream.start') && (start = f), f);
    world.relay.onServerFrame = (f, socket) => (isFrame(f, 'stream.start') && found(socket), f);
    const writer = await world.agent.stream(world.conversationId);
    return { writer, cipher: await malloryCipher(world, m, start!), userSocket };
  }

  it("under 'warn', the member the service added is reported (membersChanged) before she gets the key", async () => {
    const { writer } = await openWatched();
    await writer.end();
    expect(changes).toContainEqual({
      conversationId: world.conversationId,
      added: [m.id],
      removed: [],
      unsigned: [],
      blocked: false,
    });
  });

  it('a delta she seals under the stream key is refused (bad_signature) before any of its text is shown', async () => {
    const events = streamEvents(world.user.client);
    const forged = 'FORGED: wire the money to account 0666';
    // The relay swaps the agent's first delta for Mallory's: it opens (she holds the key) …
    const held: { cipher?: StreamCipher } = {};
    world.relay.onServerFrame = (f) => {
      if (!isFrame(f, 'stream.delta') || f['seq'] !== 1 || held.cipher === undefined) return f;
      const sealed = held.cipher.sealDelta(1, frameStreamDelta(utf8(forged)));
      return { ...f, ciphertext: toBase64(sealed) };
    };
    let start: Frame | undefined;
    world.relay.onClientFrame = (f) => (isFrame(f, 'stream.start') && (start = f), f);
    const writer = await world.agent.stream(world.conversationId);
    held.cipher = await malloryCipher(world, m, start!);
    await writer.write('the agent says: ');
    await new Promise((r) => setTimeout(r, 50)); // delta 1 (signed) went out, and was swapped on the way
    expect(events.deltas).toEqual([]); // the forgery waits for a signature: nothing shown
    await writer.write('all is well');
    const failure = await events.failed;
    // … but the agent's next checkpoint covers its own text, not hers.
    expect(failure.reason).toBe('bad_signature');
    expect(isCryptoError(failure.error)).toBe(true);
    expect(failure.text).toBe('');
    expect(events.deltas).toEqual([]);
    expect(events.ends).toEqual([]);
    await writer.end().catch(() => undefined);
  });

  it('a forged checkpoint (her own signature in the delta) is refused the same way', async () => {
    const events = streamEvents(world.user.client);
    const { writer, cipher, userSocket } = await openWatched();
    await writer.write('genuine');
    await waitFor(() => events.deltas.length === 1);
    expect(events.deltas.map((d) => d.delta)).toEqual(['genuine']);
    const bogus = m.keys.signing.privateKey.slice(0, 32); // any 64 bytes that are not the agent's signature
    const forged = frameStreamDelta(utf8(' and FORGED'), concatBytes(bogus, bogus));
    (await userSocket).toClient({
      type: 'stream.delta',
      stream_id: writer.streamId,
      seq: 2,
      ciphertext: toBase64(cipher.sealDelta(2, forged)),
    });
    const failure = await events.failed;
    expect(failure.reason).toBe('bad_signature');
    expect(failure.text).toBe('genuine');
    expect(events.deltas.map((d) => d.delta)).toEqual(['genuine']);
    await writer.end().catch(() => undefined);
  });

  it('an abort she seals is refused (bad_signature): the stream is not reported aborted and her reason is never shown', async () => {
    const events = streamEvents(world.user.client);
    const { writer, cipher, userSocket } = await openWatched();
    await writer.write('partial answer');
    await waitFor(() => events.deltas.length === 1);
    const reason = 'the agent gave up: continue at evil.example';
    const fakeSignature = new Uint8Array(64).fill(9);
    (await userSocket).toClient({
      type: 'stream.abort',
      stream_id: writer.streamId,
      ciphertext: toBase64(cipher.sealAbort(1, concatBytes(fakeSignature, utf8(reason)))),
    });
    const failure = await events.failed;
    expect(failure.reason).toBe('bad_signature');
    expect(failure.detail).toBeUndefined();
    expect(events.failures.some((f) => f.reason === 'aborted' || f.detail?.includes('evil') === true)).toBe(
      false,
    );
    await writer.end().catch(() => undefined);
  });

  it("the agent's own abort still ends the stream as aborted, with its signed reason", async () => {
    const events = streamEvents(world.user.client);
    const { writer } = await openWatched();
    await writer.write('thinking…');
    await writer.abort('cancelled by the agent');
    const failure = await events.failed;
    expect(failure).toMatchObject({ reason: 'aborted', detail: 'cancelled by the agent' });
  });
});

describe('finished streams and the client deadline', () => {
  let world: SecurityWorld;
  const store = new MemoryStreamReplayStore(systemClock); // stands for a persistent store: it outlives the client
  beforeAll(async () => {
    world = await startSecurityWorld({ user: { streamReplayStore: store } });
  });
  afterAll(async () => world.close());

  /** A client for the same user, as after a restart of the app. */
  async function restarted(extra: Parameters<SecurityWorld['newUserClient']>[0]): Promise<UserClient> {
    const client = world.newUserClient(extra);
    await client.login({
      email: world.user.email,
      accountPassword: ACCOUNT_PASSWORD,
      turnstileToken: 'pass',
      protectionPassword: PROTECTION_PASSWORD,
    });
    await client.connect();
    return client;
  }

  it('a finished stream replayed to the restarted client is refused (replayed) when the replay store persists', async () => {
    const captured: Frame[] = [];
    world.relay.onServerFrame = (f) => {
      if (isFrame(f, 'stream.start') || isFrame(f, 'stream.delta') || isFrame(f, 'stream.end'))
        captured.push(f);
      return f;
    };
    const ended = nextEvent<[StreamEnded]>(world.user.client, 'streamEnd');
    await world.agent.streamFrom(world.conversationId, ['a reply ', 'worth replaying']);
    expect((await ended)[0].text).toBe('a reply worth replaying');
    world.relay.onServerFrame = undefined;
    await world.user.client.disconnect();

    // With the persistent store: refused before anything is shown.
    const after = await restarted({ streamReplayStore: store });
    const events = streamEvents(after);
    let starts = 0;
    after.on('streamStart', () => (starts += 1));
    const socket = world.relay.sockets.at(-1)!;
    for (const frame of captured) socket.toClient(frame);
    const failure = await events.failed;
    expect(failure.reason).toBe('replayed');
    expect(isCryptoError(failure.error)).toBe(true);
    expect(starts).toBe(0);
    expect(events.deltas).toEqual([]);
    expect(events.ends).toEqual([]);
    await after.disconnect();

    // Control: a client whose replay memory did not survive the restart shows it again.
    const forgetful = await restarted({ streamReplayStore: new MemoryStreamReplayStore(systemClock) });
    const shown = nextEvent<[StreamEnded]>(forgetful, 'streamEnd');
    const fresh = world.relay.sockets.at(-1)!;
    for (const frame of captured) fresh.toClient(frame);
    expect((await shown)[0].text).toBe('a reply worth replaying');
    await forgetful.disconnect();
  });

  it('a stream the relay never ends ends by the client deadline (deadline), with only the signed text', async () => {
    const client = await restarted({ streamReplayStore: store, streamDeadlineMs: 1_500 });
    const events = streamEvents(client);
    world.relay.onServerFrame = (f) => (isFrame(f, 'stream.end') ? DROP : f);
    const writer = await world.agent.stream(world.conversationId);
    await writer.write('almost');
    await waitFor(() => events.deltas.length === 1); // shown: its checkpoint came
    await writer.end();
    const failure = await events.failed;
    expect(failure.reason).toBe('deadline');
    expect(isCryptoError(failure.error)).toBe(true);
    expect(failure.text).toBe('almost');
    expect(events.ends).toEqual([]);
    world.relay.onServerFrame = undefined;
    await client.disconnect();
  });
});
