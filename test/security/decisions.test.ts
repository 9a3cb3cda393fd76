/**
 * Human decisions against a hostile service (#24, items 6 and 11): the
 * service mints a principal and answers an artifact as it, replays a human's
 * answer to a revision the agent has replaced, and forges or rewrites the
 * system events that carry an owner's or a user's decision (`grant.decided`,
 * `grant.revoked`, `agent.capability_changed`). Each is refused by the Agent
 * before any handler sees it (`decisionRefused`, a `CryptoError`
 * `DECISION_REFUSED`), and nothing settles on it; the genuine flows still
 * work end to end through the same relay.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DecisionRefusal } from '../../packages/sdk/src/agent/index.js';
import type { AnyAgentEvent } from '../../packages/sdk/src/agent/events.js';
import type { ReceivedArtifact } from '../../packages/sdk/src/client/user-artifacts.js';
import { systemClock, type Clock } from '../../packages/sdk/src/core/clock.js';
import { toBase64 } from '../../packages/sdk/src/core/encoding.js';
import { generateKeys, sealAsync } from '../../packages/sdk/src/crypto/index.js';
import { manifestSha256, signDecision } from '../../packages/sdk/src/crypto/decision.js';
import { sampleManifest } from '../fixtures/manifests/manifests.js';
import { answer } from '../helpers/hostile-relay.js';
import { startSecurityWorld, type SecurityWorld } from './world.js';

let world: SecurityWorld;
const refusals: DecisionRefusal[] = [];
const seen: AnyAgentEvent[] = [];
/**
 * The server runs on virtual time; the system events it seals are dated by it.
 * The clients read the same time once the world is up (before, the real one).
 */
let serverNow: (() => number) | undefined;
const clock: Clock = {
  now: () => serverNow?.() ?? Date.now(),
  setTimeout: (fn, ms, options) => systemClock.setTimeout(fn, ms, options),
  clearTimeout: (handle) => systemClock.clearTimeout(handle),
};
const nowIso = (offsetMs = 0): string => new Date(clock.now() + offsetMs).toISOString();

beforeAll(async () => {
  world = await startSecurityWorld({ agent: { clock }, user: { clock } });
  serverNow = () => world.server.control.now();
  world.agent.on('decisionRefused', (r) => refusals.push(r));
  world.agent.on('event', (e) => {
    seen.push(e);
  });
});
afterAll(async () => {
  await world?.close();
});

/** Resolves with the next refusal, or rejects after `ms`. */
function nextRefusal(ms = 5_000): Promise<DecisionRefusal> {
  const before = refusals.length;
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const poll = setInterval(() => {
      if (refusals.length > before) {
        clearInterval(poll);
        resolve(refusals[before]!);
      } else if (Date.now() - started > ms) {
        clearInterval(poll);
        reject(new Error('no decisionRefused'));
      }
    }, 10);
  });
}

/** A WebSocket delivery frame to the agent, as the service sends one. */
function agentFrame(type: string, wire: string, conversationId: string, senderId: string) {
  return {
    type,
    version: 'v1',
    wire_envelope: wire,
    metadata: { conversation_id: conversationId, sender_id: senderId, created_at: nowIso() },
    delivery_id: randomUUID(),
  };
}

/** The agent's current X25519 public key, as the honest server lists it. */
async function agentEncryptionKey(): Promise<Uint8Array> {
  const { accessToken } = await world.server.control.accessToken(world.user.userId);
  const res = await fetch(`${world.server.url}/keys/${world.agentId}`, {
    headers: { authorization: `Bearer ${accessToken}` },
  });
  const body = (await res.json()) as { data: { public_key: string } };
  return Uint8Array.from(Buffer.from(body.data.public_key, 'base64'));
}

/** The user answers the next artifact the way `act` says; resolves with it. */
function onNextArtifact(act: (a: ReceivedArtifact) => Promise<unknown>): Promise<ReceivedArtifact> {
  return new Promise((resolve) => {
    world.user.client.once('artifact', (a: ReceivedArtifact) => {
      void act(a).catch(() => undefined);
      resolve(a);
    });
  });
}

describe('artifact answers', () => {
  it('an approval from a principal the service minted is refused; the artifact stays open', async () => {
    const artifact = await world.agent.artifacts.send(world.conversationId, {
      content: { kind: 'confirm', title: 'Wire 10 000 EUR?' },
    });
    expect(artifact.approvers).toEqual([world.user.userId]);
    // The service mints a principal and serves its keys to whoever asks.
    const minted = generateKeys();
    const mintedId = `u-${randomUUID()}`;
    world.relay.onResponse = (_method, path, json) =>
      path === `/keys/${mintedId}`
        ? answer(200, {
            data: {
              id: mintedId,
              kind: 'user',
              public_key: toBase64(minted.encryption.publicKey),
              signing_public_key: toBase64(minted.signing.publicKey),
              key_id: null,
              signing_key_id: null,
              retired: [],
            },
          })
        : json;
    try {
      const wire = await sealAsync(
        {
          type: 'artifact_response',
          artifact_id: artifact.artifactId,
          revision: 1,
          status: 'approved',
          data: {},
        },
        {
          eventType: 'artifact_response',
          sender: { id: mintedId, signing: minted.signing },
          recipients: [{ id: world.agentId, publicKey: await agentEncryptionKey() }],
          conversationId: world.conversationId,
          messageId: randomUUID(),
          clock,
        },
      );
      const refused = nextRefusal();
      expect(
        world.relay.inject(agentFrame('artifact_response', wire, world.conversationId, mintedId), '/ws'),
      ).toBeGreaterThanOrEqual(1);
      const r = await refused;
      expect(r).toMatchObject({
        eventType: 'artifact_response',
        reason: 'not_a_member',
        senderId: mintedId,
        subject: artifact.artifactId,
      });
      expect(r.error.code).toBe('DECISION_REFUSED');
      expect(r.error.params).toEqual({ reason: 'not_a_member' });
      expect(artifact.outcome).toBeUndefined();
      expect(seen.some((e) => e.type === 'artifact_response' && e.senderId === mintedId)).toBe(false);
    } finally {
      world.relay.onResponse = undefined;
    }
  });

  it("the human's answer to revision 1, replayed after the agent moved to revision 2, is refused", async () => {
    const artifact = await world.agent.artifacts.send(world.conversationId, {
      content: { kind: 'confirm', title: 'Delete 3 files?' },
    });
    // The service keeps the human's signed answer to revision 1 instead of delivering it.
    let held: string | undefined;
    world.relay.onRequest = (_method, path, json) => {
      if (!path.endsWith('/answer')) return json;
      const body = json as { wire_envelope: string; revision: number };
      held = body.wire_envelope;
      return { ...body, revision: 99 }; // the honest server refuses this copy
    };
    try {
      await onNextArtifact((a) => a.approve());
      await expect.poll(() => held, { timeout: 5_000 }).toBeDefined();
    } finally {
      world.relay.onRequest = undefined;
    }
    expect(await artifact.replace({ content: { kind: 'confirm', title: 'Delete 300 files?' } })).toBe(2);
    const refused = nextRefusal();
    world.relay.inject(
      agentFrame('artifact_response', held!, world.conversationId, world.user.userId),
      '/ws',
    );
    expect(await refused).toMatchObject({
      reason: 'stale_revision',
      senderId: world.user.userId,
      subject: artifact.artifactId,
    });
    expect(artifact.outcome).toBeUndefined();
  });

  it('the genuine flow: the human approves the current revision and the promise resolves', async () => {
    const artifact = await world.agent.artifacts.send(world.conversationId, {
      content: { kind: 'confirm', title: 'Deploy?' },
    });
    await artifact.replace({ content: { kind: 'confirm', title: 'Deploy v2?' } });
    const answered = new Promise<void>((resolve) => {
      const onArtifact = (a: ReceivedArtifact): void => {
        if (a.artifactId !== artifact.artifactId || a.revision !== 2) return;
        world.user.client.off('artifact', onArtifact);
        void a.approve().then(() => resolve());
      };
      world.user.client.on('artifact', onArtifact);
    });
    await answered;
    const outcome = await artifact.response({ timeoutMs: 5_000 });
    expect(outcome).toMatchObject({ status: 'approved', revision: 2, artifactId: artifact.artifactId });
    expect(outcome.status === 'approved' && outcome.event.senderId).toBe(world.user.userId);
  });
});

describe("owner's and user's decisions", () => {
  it('a grant.decided forged by the service (sealed by system, no signature) is refused', async () => {
    const asked = await world.agent.grants.request({
      conversationId: world.conversationId,
      scope: 'profile.read',
      windowSeconds: 600,
      reason: 'to greet you',
    });
    const refused = nextRefusal();
    await world.server.control.sendSystemEvent(world.agentId, 'grant.decided', {
      grant_id: asked.grantId,
      scope: 'profile.read',
      user_id: world.user.userId,
      agent_id: world.agentId,
      conversation_id: world.conversationId,
      decision: 'granted',
      expires_at: nowIso(600_000),
    });
    expect(await refused).toMatchObject({
      eventType: 'grant.decided',
      reason: 'unsigned',
      subject: asked.grantId,
    });
    expect(seen.some((e) => e.type === 'grant.decided')).toBe(false);
  });

  it("a grant.decided whose statement is signed by another key than the user's is refused; the user's own goes through", async () => {
    const asked = await world.agent.grants.request({
      conversationId: world.conversationId,
      scope: 'profile.read',
      windowSeconds: 3_600,
      reason: 'to greet you',
    });
    const decided = world.agent.grants.awaitDecision(asked.grantId);
    await world.user.client.grants.grant(asked.grantId, { windowSeconds: 600 });
    expect((await decided).status).toBe('granted');
    // The service stretches the window and signs the statement itself: the signature cannot be the user's.
    const signed = await signDecision(
      {
        v: 1,
        kind: 'grant.granted',
        agent_id: world.agentId,
        signer_id: world.user.userId,
        decided_at: nowIso(),
        grant_id: asked.grantId,
        conversation_id: world.conversationId,
        scope: 'profile.read',
        window_seconds: 3_600,
      },
      generateKeys().signing,
    );
    const refused = nextRefusal();
    await world.server.control.sendSystemEvent(world.agentId, 'grant.decided', {
      grant_id: asked.grantId,
      scope: 'profile.read',
      user_id: world.user.userId,
      agent_id: world.agentId,
      conversation_id: world.conversationId,
      decision: 'granted',
      expires_at: nowIso(3_600_000),
      signed_decision: signed,
    });
    expect(await refused).toMatchObject({ eventType: 'grant.decided', reason: 'bad_signature' });
  });

  it('a genuine grant.decided frame rewritten on the wire (decision flipped) is refused', async () => {
    const asked = await world.agent.grants.request({
      conversationId: world.conversationId,
      scope: 'profile.read',
      windowSeconds: 600,
      reason: 'to greet you',
    });
    // The service relabels the user's "denied" as "granted" in the event it seals (the statement stays the user's).
    const refused = nextRefusal();
    const captured = new Promise<unknown>((resolve) => {
      world.agent.once('decisionRefused', () => resolve(undefined));
    });
    world.relay.onRequest = (_m, path, json) => {
      if (!path.endsWith('/decision')) return json;
      const body = json as { signed_decision: unknown };
      void world.server.control.sendSystemEvent(world.agentId, 'grant.decided', {
        grant_id: asked.grantId,
        scope: 'profile.read',
        user_id: world.user.userId,
        agent_id: world.agentId,
        conversation_id: world.conversationId,
        decision: 'granted',
        expires_at: nowIso(600_000),
        signed_decision: body.signed_decision,
      });
      return json;
    };
    try {
      await world.user.client.grants.deny(asked.grantId);
    } finally {
      world.relay.onRequest = undefined;
    }
    await captured;
    expect(await refused).toMatchObject({
      eventType: 'grant.decided',
      reason: 'mismatch',
      subject: asked.grantId,
    });
  });

  it('a grant.revoked forged by the service is refused; the genuine revocation reaches the agent', async () => {
    const asked = await world.agent.grants.request({
      conversationId: world.conversationId,
      scope: 'conversations.list',
      windowSeconds: 600,
      reason: 'to list your chats',
    });
    const decided = world.agent.grants.awaitDecision(asked.grantId);
    await world.user.client.grants.grant(asked.grantId);
    expect((await decided).status).toBe('granted');

    const refused = nextRefusal();
    await world.server.control.sendSystemEvent(
      world.agentId,
      'grant.revoked',
      {
        grant_id: asked.grantId,
        scope: 'conversations.list',
        user_id: world.user.userId,
        agent_id: world.agentId,
        conversation_id: world.conversationId,
      },
      world.conversationId,
    );
    expect(await refused).toMatchObject({
      eventType: 'grant.revoked',
      reason: 'unsigned',
      subject: asked.grantId,
    });

    const revoked = new Promise<AnyAgentEvent>((resolve) => world.agent.once('grant.revoked', resolve));
    await world.user.client.grants.revoke(asked.grantId);
    const e = await revoked;
    expect(e.payload).toMatchObject({ grant_id: asked.grantId, scope: 'conversations.list' });
    expect(
      (e.payload as { signed_decision: { statement: { signer_id: string } } }).signed_decision.statement,
    ).toMatchObject({ kind: 'grant.revoked', signer_id: world.user.userId });
  });

  it('an agent.capability_changed forged by the service, or re-signed by a minted principal, is refused; the owner’s goes through', async () => {
    const { head_version } = await world.agent.manifest.get();
    const revision = await world.agent.manifest.update(sampleManifest(), { basedOnVersion: head_version });

    const unsigned = nextRefusal();
    await world.server.control.sendSystemEvent(world.agentId, 'agent.capability_changed', {
      agent_id: world.agentId,
      version: revision.version,
      decision: 'accepted',
    });
    expect(await unsigned).toMatchObject({ eventType: 'agent.capability_changed', reason: 'unsigned' });

    // A statement signed by a principal the service minted, naming itself as signer: not the owner.
    const minted = generateKeys();
    const byMinted = await signDecision(
      {
        v: 1,
        kind: 'manifest.accepted',
        agent_id: world.agentId,
        signer_id: 'u-minted',
        decided_at: nowIso(),
        version: revision.version,
        manifest_sha256: manifestSha256(revision.manifest),
      },
      minted.signing,
    );
    const wrongSigner = nextRefusal();
    await world.server.control.sendSystemEvent(world.agentId, 'agent.capability_changed', {
      agent_id: world.agentId,
      version: revision.version,
      decision: 'accepted',
      signed_decision: byMinted,
    });
    expect(await wrongSigner).toMatchObject({ reason: 'wrong_signer', subject: String(revision.version) });
    expect(seen.some((e) => e.type === 'agent.capability_changed')).toBe(false);

    const decided = world.agent.manifest.awaitDecision(revision.version);
    await world.user.client.manifests.accept(world.agentId, revision.version);
    expect(await decided).toEqual({ version: revision.version, decision: 'accepted' });
    expect(seen.some((e) => e.type === 'agent.capability_changed')).toBe(true);
  });
});
