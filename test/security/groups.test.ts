/**
 * Groups against a hostile service (issue #24, item 7): membership is the
 * owner-signed roster, not the service's list. Through the hostile relay:
 *
 * - the service keeps listing a member the owner removed: nothing is sealed
 *   to her (a captured envelope does not open with her keys) and
 *   `membersChanged` names her as `unsigned`;
 * - the service lists a member nobody added: no wrap for it, `membersChanged`
 *   on a `'warn'` client, `MEMBERS_CHANGED` on a `'block'` one; the same
 *   member slipped into the signed roster breaks its signature;
 * - the service replays the older roster that still lists her, or serves
 *   none: `GROUP_ROSTER_INVALID` and nothing is sent;
 * - the genuine flows still work: create, invite, join (the owner's client
 *   admits), messages, files, leave, removal, and an owner's hand-over.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent } from '../../packages/sdk/src/agent/index.js';
import type { ReceivedMessage, UserClient } from '../../packages/sdk/src/client/index.js';
import type { MembersChangedEvent } from '../../packages/sdk/src/messaging/member-watch.js';
import { fromBase64, toBase64 } from '../../packages/sdk/src/core/encoding.js';
import { isCryptoError } from '../../packages/sdk/src/core/errors/index.js';
import { parseEnvelope } from '../../packages/sdk/src/crypto/envelope-format.js';
import { MemoryKeyStore, openAsync } from '../../packages/sdk/src/crypto/index.js';
import type { KeyRing } from '../../packages/sdk/src/crypto/key-store/key-ring.js';
import { systemClock, type Clock } from '../../packages/sdk/src/core/clock.js';
import { FAST_RECONNECT } from '../helpers/agent-world.js';
import { signUp, type SignedUpUser } from '../helpers/client-setup.js';
import { startSecurityWorld, type SecurityWorld } from './world.js';

let world: SecurityWorld;
const closers: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  world = await startSecurityWorld();
});
afterAll(async () => {
  for (const close of closers.reverse()) await close().catch(() => undefined);
  await world.close();
});

interface Member {
  readonly agent: Agent;
  readonly agentId: string;
  readonly store: MemoryKeyStore;
  readonly messages: string[];
  readonly changes: MembersChangedEvent[];
}

/** The server's virtual time with real timers, for clients that open the service's own (group) events. */
const serverTime: Clock = {
  now: () => world.server.clock.now(),
  setTimeout: (fn, ms, o) => systemClock.setTimeout(fn, ms, o),
  clearTimeout: (h) => systemClock.clearTimeout(h),
};

/** Another agent (of the world's user by default), through the relay, whose private keys the test can read. */
async function member(
  name: string,
  policy: 'warn' | 'block' = 'warn',
  owner: UserClient = world.user.client,
  clock?: Clock,
): Promise<Member> {
  const created = await owner.createAgent({ name });
  const store = new MemoryKeyStore();
  const agent = new Agent({
    baseUrl: world.relay.url,
    agentId: created.agentId,
    token: created.token,
    keyStore: store,
    reconnect: FAST_RECONNECT,
    retry: { baseDelayMs: 20, maxDelayMs: 200 },
    logger: false,
    keyChangePolicy: policy,
    ...(clock === undefined ? {} : { clock }),
  });
  const m: Member = { agent, agentId: created.agentId, store, messages: [], changes: [] };
  agent.on('message.new', (msg) => void m.messages.push(msg.text ?? ''));
  agent.on('membersChanged', (e) => void m.changes.push(e));
  await agent.connect();
  closers.push(() => agent.close({ timeoutMs: 1_000 }));
  return m;
}

async function ringOf(m: Member): Promise<KeyRing> {
  return (await m.store.load())!;
}

/** The member entry the service would list for `m` (its real public keys). */
async function listingOf(m: Member): Promise<Record<string, unknown>> {
  const keys = (await ringOf(m)).current.keys;
  return {
    id: m.agentId,
    kind: 'agent',
    role: 'member',
    public_key: toBase64(keys.encryption.publicKey),
    signing_public_key: toBase64(keys.signing.publicKey),
  };
}

type Body = { data?: { conversation_id?: unknown; members?: unknown[]; roster?: unknown } };

/** While set, the relay rewrites every group detail of `conversationId` it carries. */
function rewriteGroup(conversationId: string, change: (data: NonNullable<Body['data']>) => void): () => void {
  world.relay.onResponse = (method, path, json) => {
    const data = (json as Body | undefined)?.data;
    if (method !== 'GET' || !path.includes(conversationId) || data?.conversation_id !== conversationId)
      return json;
    if (!Array.isArray(data.members)) return json;
    change(data);
    return json;
  };
  return () => void (world.relay.onResponse = undefined);
}

/** The envelopes posted for a conversation since `from` (index into `relay.seen`), by any route. */
function postedEnvelopes(conversationId: string, from: number): string[] {
  const out: string[] = [];
  for (const s of world.relay.seen.slice(from)) {
    if (s.channel !== 'http-request' || !s.text.includes('wire_envelope')) continue;
    const wire = (JSON.parse(s.text) as { wire_envelope?: unknown }).wire_envelope;
    if (typeof wire !== 'string') continue;
    if (parseEnvelope(fromBase64(wire)!).header.conversationId === conversationId) out.push(wire);
  }
  return out;
}

async function ownerSigningKey(): Promise<Uint8Array> {
  const k = await world.agent.api.publicKeys(world.user.userId);
  return fromBase64(k.signing_public_key!)!;
}

async function until(check: () => boolean | Promise<boolean>, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const refusal = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e,
  );

describe('a member the owner removed, still listed by the service', () => {
  it('gets nothing sealed to her: the captured envelope does not open with her keys; membersChanged names her', async () => {
    const eve = await member('eve-bot');
    const group = await world.user.client.groups.create({
      name: 'Removal',
      agentIds: [world.agentId, eve.agentId],
    });
    const id = group.conversationId;
    const eveListing = await listingOf(eve);
    await world.user.client.send(id, { type: 'text', text: 'before' });
    await until(() => eve.messages.includes('before'), 'the first message at eve');

    await world.user.client.groups.remove(id, eve.agentId);
    const changes: MembersChangedEvent[] = [];
    world.user.client.on('membersChanged', (e) => void changes.push(e));
    const stop = rewriteGroup(id, (data) => {
      if (!data.members!.some((m) => (m as { id?: unknown }).id === eve.agentId))
        data.members!.push(eveListing);
    });
    try {
      const from = world.relay.seen.length;
      await world.user.client.send(id, { type: 'text', text: 'after her removal' });
      const [wire] = postedEnvelopes(id, from);
      expect(wire).toBeDefined();
      const header = parseEnvelope(fromBase64(wire!)!).header;
      expect(header.recipients.map((r) => r.id)).not.toContain(eve.agentId);
      const ring = await ringOf(eve);
      const senderKey = await ownerSigningKey();
      const opened = await refusal(
        openAsync(wire!, { recipientId: eve.agentId, keys: ring.current.keys, senderKey }),
      );
      expect(isCryptoError(opened, 'DECRYPT_FAILURE')).toBe(true);
      expect((opened as { reason?: unknown }).reason).toBe('no_wrap');
      expect(changes).toContainEqual(
        expect.objectContaining({ conversationId: id, unsigned: [eve.agentId], blocked: false }),
      );
    } finally {
      stop();
    }
    // Messages she received while a member stay readable to her (they were sealed to her then).
    expect(eve.messages).toContain('before');
  });
});

describe('a member the service adds', () => {
  it('is never sealed to: membersChanged under warn, MEMBERS_CHANGED under block; in the signed roster it breaks the signature', async () => {
    const strict = await member('strict-bot', 'block');
    const ghost = await member('ghost-bot');
    const group = await world.user.client.groups.create({
      name: 'Ghost',
      agentIds: [world.agentId, strict.agentId],
    });
    const id = group.conversationId;
    const ghostListing = await listingOf(ghost);
    const warnChanges: MembersChangedEvent[] = [];
    world.agent.on('membersChanged', (e) => void warnChanges.push(e));
    const stop = rewriteGroup(id, (data) => void data.members!.push(ghostListing));
    try {
      const from = world.relay.seen.length;
      await world.agent.send(id, 'to the members only');
      const [wire] = postedEnvelopes(id, from);
      expect(parseEnvelope(fromBase64(wire!)!).header.recipients.map((r) => r.id)).not.toContain(
        ghost.agentId,
      );
      expect(warnChanges).toContainEqual(
        expect.objectContaining({ conversationId: id, unsigned: [ghost.agentId], blocked: false }),
      );

      const blocked = await refusal(strict.agent.send(id, 'never sealed'));
      expect(isCryptoError(blocked, 'MEMBERS_CHANGED')).toBe(true);
      expect(strict.changes).toContainEqual(
        expect.objectContaining({ unsigned: [ghost.agentId], blocked: true }),
      );
    } finally {
      stop();
    }

    // The service also slips the ghost into the signed roster: the owner's signature no longer holds.
    const fresh = await member('fresh-bot');
    await world.user.client.groups.admit(id, []); // nothing to admit: the roster stays as it is
    const stopForged = rewriteGroup(id, (data) => {
      const signed = data.roster as { roster: { members: unknown[] } };
      signed.roster.members.push({ id: ghost.agentId, kind: 'agent', enc: 'a'.repeat(64), sig: null });
      data.members!.push(ghostListing);
    });
    try {
      // A client that never saw this group: its first roster is the forged one.
      const g = await world.user.client.groups.invite(id);
      await fresh.agent.groups.join(g.code);
      const forged = await refusal(fresh.agent.send(id, 'never sealed'));
      expect(isCryptoError(forged, 'GROUP_ROSTER_INVALID')).toBe(true);
      expect((forged as Error).message).toContain('(signature)');
    } finally {
      stopForged();
    }
  });
});

describe('an older roster replayed, or none at all', () => {
  it('is refused with GROUP_ROSTER_INVALID and nothing is sent', async () => {
    const eve = await member('replayed-bot');
    const group = await world.user.client.groups.create({
      name: 'Replay',
      agentIds: [world.agentId, eve.agentId],
    });
    const id = group.conversationId;
    const eveListing = await listingOf(eve);
    let old: unknown;
    const record = rewriteGroup(id, (data) => void (old ??= structuredClone(data.roster)));
    await world.agent.send(id, 'v1 seen');
    record();
    expect((old as { roster: { version: number } }).roster.version).toBe(1);

    await world.user.client.groups.remove(id, eve.agentId);
    await world.agent.send(id, 'v2 seen'); // the agent accepts version 2 (without eve)
    const stop = rewriteGroup(id, (data) => {
      data.roster = structuredClone(old);
      data.members!.push(eveListing);
    });
    try {
      const from = world.relay.seen.length;
      world.agent.groups.observe('group.updated', id); // as on any group event: the agent reads the group again
      const replayed = await refusal(world.agent.send(id, 'never sealed'));
      expect(isCryptoError(replayed, 'GROUP_ROSTER_INVALID')).toBe(true);
      expect((replayed as Error).message).toContain('(rolled_back)');
      expect(postedEnvelopes(id, from)).toEqual([]);
    } finally {
      stop();
    }
    const strip = rewriteGroup(id, (data) => void (data.roster = null));
    try {
      world.agent.groups.observe('group.updated', id);
      const missing = await refusal(world.agent.send(id, 'never sealed'));
      expect(isCryptoError(missing, 'GROUP_ROSTER_INVALID')).toBe(true);
      expect((missing as Error).message).toContain('(missing)');
    } finally {
      strip();
    }
  });
});

describe('the genuine flows through the relay', () => {
  // Every party reads time as the server does: the group events are sealed on its virtual clock.
  let bob: SignedUpUser;
  let carol: SignedUpUser;
  const bobMessages: ReceivedMessage[] = [];
  const carolMessages: ReceivedMessage[] = [];

  beforeAll(async () => {
    bob = await signUp(world.server, world.newUserClient({ clock: serverTime }));
    carol = await signUp(world.server, world.newUserClient({ clock: serverTime }));
    bob.client.on('message', (m) => void bobMessages.push(m));
    carol.client.on('message', (m) => void carolMessages.push(m));
    await bob.client.connect();
    await carol.client.connect();
    closers.push(
      () => bob.client.disconnect(),
      () => carol.client.disconnect(),
    );
  });

  it('create, invite, join (admitted by the owner), messages, files, leave, remove, hand-over', async () => {
    const scribe = await member('scribe-bot', 'warn', bob.client, serverTime);
    const helper = await member('helper-bot', 'warn', bob.client, serverTime);
    const group = await bob.client.groups.create({ name: 'Genuine', agentIds: [scribe.agentId] });
    const id = group.conversationId;
    expect((await bob.client.groups.roster(id)).version).toBe(1);

    // Carol and a helper agent join by code; Bob's connected client admits each on the join event.
    await carol.client.groups.join((await bob.client.groups.invite(id)).code);
    await helper.agent.groups.join((await bob.client.groups.invite(id)).code);
    const everyone = [bob.userId, carol.userId, scribe.agentId, helper.agentId].sort();
    await until(
      async () => (await carol.client.groups.roster(id)).members.map((m) => m.id).join() === everyone.join(),
      'everyone in the signed roster',
    );
    await bob.client.send(id, { type: 'text', text: 'welcome' });
    await until(
      () => carolMessages.some((m) => (m.payload.type === 'text' ? m.payload.text : undefined) === 'welcome'),
      'the message at Carol',
    );
    await until(() => helper.messages.includes('welcome'), 'the message at the helper');
    await until(() => scribe.messages.includes('welcome'), 'the message at the scribe');
    await helper.agent.send(id, 'from the helper');
    await until(
      () =>
        bobMessages.some(
          (m) => (m.payload.type === 'text' ? m.payload.text : undefined) === 'from the helper',
        ),
      "the helper's message",
    );

    const text = 'group file\n'.repeat(2_000);
    await bob.client.files.upload(id, new TextEncoder().encode(text), { name: 'notes.txt' });
    await until(() => carolMessages.some((m) => m.payload['type'] === 'file'), 'the file at Carol');
    const file = carolMessages.find((m) => m.payload['type'] === 'file')!;
    const copy = await (await carol.client.files.download(file.payload as never)).toBytes();
    expect(new TextDecoder().decode(copy)).toBe(text);

    await bob.client.groups.remove(id, helper.agentId);
    expect((await carol.client.groups.roster(id)).members.map((m) => m.id)).not.toContain(helper.agentId);

    // Bob leaves: he signs a last roster naming Carol as owner; Carol signs the next ones.
    await bob.client.groups.leave(id);
    const handed = await carol.client.groups.roster(id);
    expect(handed).toMatchObject({ owner_id: carol.userId, signed_by: bob.userId });
    await carol.client.groups.remove(id, scribe.agentId);
    const byCarol = await carol.client.groups.roster(id);
    expect(byCarol).toMatchObject({ owner_id: carol.userId, signed_by: carol.userId });
    expect(byCarol.version).toBe(handed.version + 1);
    expect(byCarol.members.map((m) => m.id)).toEqual([carol.userId]);
    await carol.client.send(id, { type: 'text', text: 'alone now' });
  });
});
