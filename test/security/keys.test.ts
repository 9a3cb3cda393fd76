/**
 * Ghost keys (#24 items 1 and 2), staged by the hostile relay playing the
 * service: a "retired" key of its own in the first answer about a peer, the
 * same after the peer was pinned, a `retired_at` in 2099 on a real rotation,
 * a stolen key revived after an emergency rotation, a restart with pins on
 * disk, and the safety number of a wrapped-to key. The ghost key's private
 * half is always the relay's: the proof that nothing was wrapped to it is
 * that opening the captured envelope with it fails.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Agent, type KeyRefusedEvent } from '../../packages/sdk/src/agent/index.js';
import type { ReceivedMessage } from '../../packages/sdk/src/client/index.js';
import { systemClock, type Clock } from '../../packages/sdk/src/core/clock.js';
import { fromBase64, toBase64 } from '../../packages/sdk/src/core/encoding.js';
import {
  FileKeyStore,
  generateKeys,
  keyFingerprint,
  MemoryKeyStore,
  openAsync,
  safetyNumber,
  sealAsync,
  type AgentKeys,
  type KeyStore,
} from '../../packages/sdk/src/crypto/index.js';
import { FAST_RECONNECT } from '../helpers/agent-world.js';
import { nextEvent } from '../helpers/client-setup.js';
import { startSecurityWorld, type SecurityWorld } from './world.js';

const DAY = 24 * 3_600_000;
const IN_2099 = '2099-01-01T00:00:00.000Z';

let world: SecurityWorld | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await world?.close();
  world = undefined;
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

/** A clock the test can move forward (timers run in real time). */
function offsetClock(): Clock & { advance(ms: number): void } {
  let offset = 0;
  return {
    now: () => systemClock.now() + offset,
    setTimeout: (fn, ms, o) => systemClock.setTimeout(fn, ms, o),
    clearTimeout: (h) => systemClock.clearTimeout(h),
    advance(ms) {
      offset += ms;
    },
  };
}

/** The wire entry of a retired generation the relay adds. */
const retiredEntry = (k: AgentKeys, retiredAt = new Date().toISOString()) => ({
  public_key: toBase64(k.encryption.publicKey),
  signing_public_key: toBase64(k.signing.publicKey),
  key_id: keyFingerprint(k.encryption.publicKey),
  valid_until: IN_2099,
  retired_at: retiredAt,
});

type Json = Record<string, unknown>;
/** Applies `edit` to every key view of `peerId` the service answers (`GET /keys/:id` and conversation members). */
function rewritePeerKeys(w: SecurityWorld, peerId: string, edit: (view: Json) => void): void {
  w.relay.onResponse = (method, path, json) => {
    const data = (json as { data?: unknown } | null)?.data as Json | undefined;
    if (method !== 'GET' || data === undefined || data === null) return json;
    if (path.startsWith(`/keys/${peerId}`) && data['id'] === peerId) edit(data);
    const members = data['members'];
    if (Array.isArray(members))
      for (const m of members as Json[]) if (m['id'] === peerId && m['public_key']) edit(m);
    return json;
  };
}

/** Every wire envelope a client posted through the relay so far. */
function postedEnvelopes(w: SecurityWorld): string[] {
  return w.relay.seen
    .filter((s) => s.channel === 'http-request' && s.text.includes('wire_envelope'))
    .map((s) => (JSON.parse(s.text) as { wire_envelope: string }).wire_envelope);
}

/** True when `keys` opens `wire` as recipient `id` (the sender's key is not what is tested). */
async function opensWith(wire: string, id: string, keys: AgentKeys, senderKey: Uint8Array): Promise<boolean> {
  return openAsync(wire, { recipientId: id, keys, senderKey }).then(
    () => true,
    () => false,
  );
}

/** The user's public keys, from the key backup it uploaded through the relay. */
function userPublicKeys(w: SecurityWorld): { signing: Uint8Array; encryption: Uint8Array } {
  const upload = w.relay.seen.find((s) => s.channel === 'http-request' && s.path.startsWith('/keys/backup'))!;
  const field = (name: string) => fromBase64(new RegExp(`"${name}":"([^"]+)"`).exec(upload.text)![1]!)!;
  return { signing: field('signing_public_key'), encryption: field('public_key') };
}

async function userSendsAndAgentReads(w: SecurityWorld, text: string): Promise<string> {
  const received = nextEvent<[{ text?: string }]>(w.agent, 'message.new');
  const before = postedEnvelopes(w).length;
  await w.user.client.send(w.conversationId, { type: 'text', text });
  const [msg] = await received;
  expect(msg.text).toBe(text);
  const posted = postedEnvelopes(w);
  expect(posted.length).toBe(before + 1);
  return posted.at(-1)!;
}

async function agentSigningKey(store: KeyStore): Promise<Uint8Array> {
  return (await store.load())!.current.keys.signing.publicKey;
}

/** Regenerates the agent's token and starts a new Agent on the same key store (it rotates its keys). */
async function restartAgent(w: SecurityWorld, store: KeyStore, emergency: boolean): Promise<Agent> {
  const { token } = await w.user.client.regenerateAgentToken(w.agentId, { emergency });
  await w.agent.close({ timeoutMs: 1_000 });
  const agent = new Agent({
    baseUrl: w.relay.url,
    agentId: w.agentId,
    token,
    keyStore: store,
    reconnect: FAST_RECONNECT,
    retry: { baseDelayMs: 20, maxDelayMs: 200 },
    logger: false,
  });
  await agent.connect();
  (w as { agent: Agent }).agent = agent;
  return agent;
}

describe('ghost keys against a hostile service', () => {
  it('a retired key in the first answer is not pinned and nothing is wrapped to it', async () => {
    const store = new MemoryKeyStore();
    world = await startSecurityWorld({ user: { keyCacheTtlMs: 0 }, agent: { keyStore: store } });
    const w = world;
    const ghost = generateKeys();
    rewritePeerKeys(w, w.agentId, (v) => {
      v['retired'] = [retiredEntry(ghost)];
    });
    const wire = await userSendsAndAgentReads(w, 'first words');
    // The relay holds the ghost's private key: it cannot open what the user sent.
    expect(await opensWith(wire, w.agentId, ghost, userPublicKeys(w).signing)).toBe(false);
    // Control: the same sender key opens it with the agent's real keys.
    expect(
      await opensWith(wire, w.agentId, (await store.load())!.current.keys, userPublicKeys(w).signing),
    ).toBe(true);
  });

  it('a retired key added after pinning, without a valid statement, is refused and reported', async () => {
    const store = new MemoryKeyStore();
    world = await startSecurityWorld({ user: { keyCacheTtlMs: 0 }, agent: { keyStore: store } });
    const w = world;
    await userSendsAndAgentReads(w, 'pin the agent');
    const refused: KeyRefusedEvent[] = [];
    w.user.client.on('keyRefused', (e) => refused.push(e));
    const ghost = generateKeys();
    rewritePeerKeys(w, w.agentId, (v) => {
      v['retired'] = [retiredEntry(ghost)];
    });
    const wire = await userSendsAndAgentReads(w, 'second words');
    expect(await opensWith(wire, w.agentId, ghost, userPublicKeys(w).signing)).toBe(false);
    expect(
      await opensWith(wire, w.agentId, (await store.load())!.current.keys, userPublicKeys(w).signing),
    ).toBe(true);
    expect(refused).toEqual([
      { peerId: w.agentId, keyId: keyFingerprint(ghost.encryption.publicKey), reason: 'unvouched' },
    ]);
  });

  it('a real rotation is followed, but a retired_at in 2099 is honoured only up to first sight + 7 days', async () => {
    const clock = offsetClock();
    const store = new MemoryKeyStore();
    world = await startSecurityWorld({ user: { keyCacheTtlMs: 0, clock }, agent: { keyStore: store } });
    const w = world;
    await userSendsAndAgentReads(w, 'pin the agent');
    const old = (await store.load())!.current.keys;
    const changed: unknown[] = [];
    w.user.client.on('keyChanged', (e) => changed.push(e));
    await restartAgent(w, store, false);
    rewritePeerKeys(w, w.agentId, (v) => {
      for (const r of (v['retired'] ?? []) as Json[]) {
        r['retired_at'] = IN_2099;
        r['valid_until'] = IN_2099;
      }
    });
    // In grace: the signed statement vouches for the new keys, the old one is still wrapped to.
    const inGrace = await userSendsAndAgentReads(w, 'during the grace');
    expect(changed).toEqual([]);
    expect(await opensWith(inGrace, w.agentId, old, userPublicKeys(w).signing)).toBe(true);
    // 7 days and a minute later by the user's clock: the service still says 2099, the client stops.
    // (The agent refuses a message dated 7 days ahead of its own clock, so only the envelope is checked.)
    clock.advance(7 * DAY + 60_000);
    await w.user.client.send(w.conversationId, { type: 'text', text: 'after the grace' });
    const after = postedEnvelopes(w).at(-1)!;
    expect(await opensWith(after, w.agentId, old, userPublicKeys(w).signing)).toBe(false);
    const current = (await store.load())!.current.keys;
    expect(await opensWith(after, w.agentId, current, userPublicKeys(w).signing)).toBe(true);
  });

  it('after an emergency rotation the stolen key is dead: not wrapped to, its signatures refused', async () => {
    const store = new MemoryKeyStore();
    world = await startSecurityWorld({ user: { keyCacheTtlMs: 0 }, agent: { keyStore: store } });
    const w = world;
    await userSendsAndAgentReads(w, 'pin the agent');
    // The thief (working with the service) holds the old generation.
    const stolen = (await store.load())!.current.keys;
    const agentMessage = nextEvent<[ReceivedMessage]>(w.user.client, 'message');
    await w.agent.send(w.conversationId, 'a genuine message');
    await agentMessage;
    const frame = w.relay.seen
      .filter((s) => s.channel === 'ws-down' && s.text.includes('wire_envelope'))
      .map((s) => JSON.parse(s.text) as Json)
      .at(-1)!;
    const changed: unknown[] = [];
    w.user.client.on('keyChanged', (e) => changed.push(e));
    await restartAgent(w, store, true);
    expect(await agentSigningKey(store)).not.toEqual(stolen.signing.publicKey);
    await userSendsAndAgentReads(w, 'after the emergency');
    expect(changed).toHaveLength(1); // the emergency rotation is a key change (warn accepts it)
    // The service revives the stolen generation as "retired until 2099".
    rewritePeerKeys(w, w.agentId, (v) => {
      v['retired'] = [retiredEntry(stolen, IN_2099)];
    });
    const wire = await userSendsAndAgentReads(w, 'revived?');
    expect(await opensWith(wire, w.agentId, stolen, userPublicKeys(w).signing)).toBe(false);
    // A message the thief signs with the stolen key, delivered by the service, is refused.
    const forged = await sealAsync(
      { type: 'text', text: 'send the money to the thief' },
      {
        sender: { id: w.agentId, signing: stolen.signing },
        recipients: [{ id: w.user.userId, publicKey: userPublicKeys(w).encryption }],
        conversationId: w.conversationId,
      },
    );
    const failed = nextEvent<[{ messageId: string }]>(w.user.client, 'messageFailed');
    const shown: ReceivedMessage[] = [];
    w.user.client.on('message', (m) => shown.push(m));
    const messageId = globalThis.crypto.randomUUID();
    w.relay.inject(
      { ...frame, wire_envelope: forged, message_id: messageId, delivery_id: `d-${messageId}`, seq: 999_999 },
      /^\/ws/,
    );
    await failed;
    expect(shown).toEqual([]);
  });

  it('pins survive a restart with a FileKeyStore: a ghost added meanwhile is still refused', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ams-pins-'));
    dirs.push(dir);
    const store = new FileKeyStore({ directory: dir });
    world = await startSecurityWorld({ agent: { keyStore: store } });
    const w = world;
    const reply = nextEvent<[ReceivedMessage]>(w.user.client, 'message');
    await w.agent.send(w.conversationId, 'hello, I pin you now');
    await reply;
    const onDisk = await readFile(join(dir, 'pins.json'), 'utf8');
    expect(onDisk).toContain(toBase64(userPublicKeys(w).encryption));
    const ring = (await store.load())!;
    expect(onDisk).not.toContain(toBase64(ring.current.keys.encryption.privateKey));
    expect(onDisk).not.toContain(toBase64(ring.current.keys.signing.privateKey));
    // The agent restarts; meanwhile the service lists a ghost "retired" key for the user.
    const ghost = generateKeys();
    rewritePeerKeys(w, w.user.userId, (v) => {
      v['retired'] = [retiredEntry(ghost)];
    });
    await w.agent.close({ timeoutMs: 1_000 });
    const { token } = await w.user.client.regenerateAgentToken(w.agentId, { emergency: false });
    const agent = new Agent({
      baseUrl: w.relay.url,
      agentId: w.agentId,
      token,
      keyStore: new FileKeyStore({ directory: dir }),
      reconnect: FAST_RECONNECT,
      logger: false,
    });
    (w as { agent: Agent }).agent = agent;
    const refused: KeyRefusedEvent[] = [];
    agent.on('keyRefused', (e) => refused.push(e));
    await agent.connect();
    const before = w.relay.seen.length;
    const second = nextEvent<[ReceivedMessage]>(w.user.client, 'message');
    await agent.send(w.conversationId, 'after my restart');
    await second;
    const wire = w.relay.seen
      .slice(before)
      .filter((s) => s.channel === 'http-request' && s.text.includes('envelope'))
      .map((s) => JSON.parse(s.text) as { envelope?: string; wire_envelope?: string })
      .map((b) => b.envelope ?? b.wire_envelope!)
      .at(-1)!;
    expect(await opensWith(wire, w.user.userId, ghost, await agentSigningKey(store))).toBe(false);
    expect(refused.map((e) => e.reason)).toEqual(['unvouched']); // not a first answer: the pin was on disk
  });

  it('the safety number covers every key the sender wraps to, and both sides agree', async () => {
    const store = new MemoryKeyStore();
    world = await startSecurityWorld({ user: { keyCacheTtlMs: 0 }, agent: { keyStore: store } });
    const w = world;
    await userSendsAndAgentReads(w, 'pin the agent');
    const old = (await store.load())!.current.keys;
    // The reference server runs on a virtual clock (March 2026): its grace dates are moved to the
    // clients' time, both in the agent's own view (how long it keeps the old pair) and in key look-ups.
    const graceEnd = new Date(Date.now() + 7 * DAY).toISOString();
    rewritePeerKeys(w, w.agentId, (v) => {
      for (const r of (v['retired'] ?? []) as Json[]) {
        r['retired_at'] = new Date().toISOString();
        r['valid_until'] = graceEnd;
      }
    });
    const lookups = w.relay.onResponse!;
    w.relay.onResponse = (method, path, json) => {
      const keys = ((json as { data?: Json } | null)?.data as Json | undefined)?.['keys'] as Json | undefined;
      if (method === 'GET' && path.startsWith(`/agents/${w.agentId}`) && keys?.['valid_until'] !== undefined)
        keys['valid_until'] = graceEnd;
      return lookups(method, path, json);
    };
    const agent = await restartAgent(w, store, false);
    const wire = await userSendsAndAgentReads(w, 'after the rotation');
    expect(await opensWith(wire, w.agentId, old, userPublicKeys(w).signing)).toBe(true); // wrapped to, in grace
    const current = (await store.load())!.current.keys;
    const user = { id: w.user.userId, ...userPublicKeys(w) };
    const currentOnly = safetyNumber(user, {
      id: w.agentId,
      signing: current.signing.publicKey,
      encryption: current.encryption.publicKey,
    });
    const shown = await w.user.client.safetyNumber(w.agentId);
    expect(shown).not.toBe(currentOnly);
    expect(shown).toBe(
      safetyNumber(user, {
        id: w.agentId,
        signing: current.signing.publicKey,
        encryption: current.encryption.publicKey,
        retired: [old.encryption.publicKey],
      }),
    );
    expect(await agent.safetyNumber(w.user.userId)).toBe(shown);
  });
});
