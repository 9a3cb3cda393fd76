/**
 * Group send benchmark (`npx tsx bench/run.ts groups`): messages per second
 * to groups of 2, 10 and 100 members, and the measurement behind the
 * sender-key decision (docs/groups.md, "Gap decisions").
 *
 * 1. Seal cost, one core: the envelope as the SDK seals a group message
 *    (one content key, one X25519 + HKDF + AES-KW wrap per member, plus the
 *    sender's own wrap, one Ed25519 signature), beside the same-run baseline
 *    of a one-to-one message (peer + self), and beside what a group sender
 *    key would cost per message (AES-256-GCM under a shared key + one
 *    Ed25519 signature, measured on the same primitives). The envelope size
 *    per group size is printed too.
 * 2. The signed roster's cost (docs/groups.md, "Signed roster"): what a
 *    group seal adds (one SHA-256 fingerprint of each member's key, checked
 *    against the roster) beside the same-run seal alone, and what accepting a
 *    roster costs when the key directory re-reads a group (canonical bytes,
 *    fingerprints, one Ed25519 verification; once per read, cached 5 minutes).
 * 3. End to end on the reference server (127.0.0.1, real HTTP): a user's
 *    `send` (directory lookup cached, seal, POST, the server's envelope
 *    check, store and fan-out), one message in flight, beside the same-run
 *    baseline of the same user sending in a one-to-one conversation. Members
 *    other than the sender are not connected: their deliveries are queued.
 */
import * as c from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { createAgentApi } from '../packages/sdk/src/agent/api.js';
import { createKeyDirectory } from '../packages/sdk/src/messaging/key-directory.js';
import { ensureAgentKeys } from '../packages/sdk/src/agent/key-lifecycle.js';
import { createMessageSender, type MessageSender } from '../packages/sdk/src/messaging/sender.js';
import {
  buildGroupRoster,
  GroupRosterBook,
  rosterFingerprint,
  signGroupRoster,
} from '../packages/sdk/src/messaging/roster.js';
import { createUserApi } from '../packages/sdk/src/client/user-api.js';
import { toBase64 } from '../packages/sdk/src/core/encoding.js';
import { KeyRing, MemoryKeyStore } from '../packages/sdk/src/crypto/index.js';
import { generateKeys, type AgentKeys } from '../packages/sdk/src/crypto/keys.js';
import { seal } from '../packages/sdk/src/crypto/seal.js';
import { routePath, SERVICE_ROUTES } from '../packages/sdk/src/core/protocol/service-names.js';
import { startReferenceServer, type ReferenceServer } from '../packages/dev/src/testing/index.js';
import { createRestClient, type RestClient } from '../packages/sdk/src/transport/rest/index.js';
import { fmt, measure, printTable } from './lib/harness.js';

const SIZES = [2, 10, 100] as const;
const PAYLOAD = { type: 'text', text: 'ship it? '.repeat(12) };

interface Member {
  readonly id: string;
  readonly keys: AgentKeys;
  readonly rest: RestClient;
}

function sealFor(sender: Member, memberKeys: readonly { id: string; publicKey: Uint8Array }[]): string {
  return seal(PAYLOAD, {
    sender: { id: sender.id, signing: sender.keys.signing },
    recipients: [...memberKeys, { id: sender.id, publicKey: sender.keys.encryption.publicKey }],
    conversationId: 'c',
  });
}

/** One message under a shared group key: AES-256-GCM of the payload, one Ed25519 signature. */
function senderKeyMessage(groupKey: Buffer, signing: c.KeyObject): () => void {
  const plaintext = Buffer.from(JSON.stringify(PAYLOAD));
  return () => {
    const iv = c.randomBytes(12);
    const cipher = c.createCipheriv('aes-256-gcm', groupKey, iv);
    const body = Buffer.concat([cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
    c.sign(null, Buffer.concat([iv, body]), signing);
  };
}

async function sealCost(): Promise<void> {
  const sender: Member = { id: 'sender', keys: generateKeys(), rest: undefined as never };
  const peers = Array.from({ length: 100 }, (_, i) => ({
    id: `m${i}`,
    publicKey: generateKeys().encryption.publicKey,
  }));
  const signing = c.generateKeyPairSync('ed25519').privateKey;
  const groupKey = c.randomBytes(32);
  const baseline = await measure('one-to-one (peer + self)', () => sealFor(sender, peers.slice(0, 1)));
  const senderKey = await measure('group sender key (any size)', senderKeyMessage(groupKey, signing));
  const rows: string[][] = [
    [baseline.name, fmt(baseline.opsPerSec), '1.00×', fmt(sealFor(sender, peers.slice(0, 1)).length)],
    [senderKey.name, fmt(senderKey.opsPerSec), `${fmt(senderKey.opsPerSec / baseline.opsPerSec, 2)}×`, '–'],
  ];
  for (const n of SIZES) {
    const others = peers.slice(0, n - 1);
    const m = await measure(`group of ${n}: wrap per member`, () => sealFor(sender, others));
    rows.push([
      m.name,
      fmt(m.opsPerSec),
      `${fmt(m.opsPerSec / baseline.opsPerSec, 2)}×`,
      fmt(sealFor(sender, others).length),
    ]);
  }
  printTable(
    'Seal cost per message, one core (node:crypto backend)',
    ['Envelope', 'messages/s', 'vs one-to-one', 'wire bytes (base64)'],
    rows,
  );
}

async function newUser(server: ReferenceServer, i: number): Promise<Member> {
  const userId = await server.control.createUser({
    email: `bench-${i}@example.com`,
    password: 'password-123',
  });
  const t = await server.control.accessToken(userId);
  const keys = generateKeys();
  const rest = createRestClient({ baseUrl: server.url, credentials: t.accessToken, rateLimits: false });
  const filler = toBase64(new Uint8Array(60).fill(7));
  await rest.post('/keys/backup', {
    backup_a: filler,
    backup_b: filler,
    argon2_salt: toBase64(new Uint8Array(32).fill(7)),
    argon2_params: { m: 65_536, t: 3, p: 4 },
    public_key: toBase64(keys.encryption.publicKey),
    signing_public_key: toBase64(keys.signing.publicKey),
    device_id: t.deviceId,
  });
  return { id: userId, keys, rest };
}

function senderOf(server: ReferenceServer, user: Member): MessageSender {
  const api = createUserApi(user.rest);
  const ring = KeyRing.create({ encryption: user.keys.encryption, signing: user.keys.signing }, Date.now());
  return createMessageSender({
    api,
    agentId: user.id,
    keys: () => ring,
    directory: createKeyDirectory({ api }),
  });
}

async function throughput(name: string, send: () => Promise<unknown>): Promise<number> {
  await send(); // warms the key directory
  return (await measure(name, send)).opsPerSec;
}

async function endToEnd(): Promise<void> {
  const server = await startReferenceServer({
    virtualTime: true,
    startTimeMs: Date.now(),
    agentTokenBcryptCost: 4,
  });
  try {
    const owner = await newUser(server, 0);
    const { agentId, token } = await server.control.createAgent({ ownerId: owner.id });
    const agentApi = createAgentApi({ baseUrl: server.url, agentId, token });
    await ensureAgentKeys({ api: agentApi, store: new MemoryKeyStore() });
    const direct = await owner.rest.post<{ conversation_id: string }>('/conversations', {
      agent_id: agentId,
    });
    const sender = senderOf(server, owner);
    const started = performance.now();
    const others = await Promise.all(Array.from({ length: 98 }, (_, i) => newUser(server, i + 1)));
    const oneToOne = (): Promise<number> =>
      throughput('one-to-one', () => sender.send(direct.conversation_id, PAYLOAD));
    const rows: string[][] = [];
    for (const n of SIZES) {
      const g = await owner.rest.post<{ conversation_id: string }>(SERVICE_ROUTES.createGroup.path, {
        name: `Group of ${n}`,
        agent_ids: [agentId],
      });
      for (const u of others.slice(0, n - 2)) {
        const invite = await owner.rest.post<{ code: string }>(
          routePath(SERVICE_ROUTES.createInvite, { id: g.conversation_id }),
          {},
        );
        await u.rest.post(SERVICE_ROUTES.joinGroup.path, { code: invite.code });
      }
      // The baseline is measured again beside each group (the machine's load drifts).
      const baseline = await oneToOne();
      const rate = await throughput(`group of ${n}`, () => sender.send(g.conversation_id, PAYLOAD));
      rows.push([
        `group of ${n} (user + agent + ${n - 2} users)`,
        fmt(rate),
        fmt(baseline),
        `${fmt(rate / baseline, 2)}×`,
      ]);
    }
    printTable(
      'End to end: send on the reference server, one in flight',
      ['Conversation', 'messages/s', 'one-to-one (same run)', 'ratio'],
      rows,
    );
    console.log(`\n(setup and runs took ${fmt((performance.now() - started) / 1000, 1)} s)`);
  } finally {
    await server.close();
  }
}

/** The signed roster: per-seal fingerprint check and per-read roster acceptance, beside the seal alone. */
export async function rosterCost(): Promise<void> {
  const owner = generateKeys();
  const rows: string[][] = [];
  for (const n of SIZES) {
    const keys = Array.from({ length: n }, () => generateKeys());
    const sender: Member = { id: 'u0', keys: owner, rest: undefined as never };
    const others = keys.map((k, i) => ({ id: `m${i}`, publicKey: k.encryption.publicKey }));
    const roster = buildGroupRoster({
      conversationId: 'c',
      version: 1,
      ownerId: 'u0',
      members: [
        { id: 'u0', kind: 'user', encryption: owner.encryption.publicKey, signing: owner.signing.publicKey },
        ...keys.map((k, i) => ({
          id: `m${i}`,
          kind: 'agent' as const,
          encryption: k.encryption.publicKey,
          signing: k.signing.publicKey,
        })),
      ],
    });
    const bound = new Map(roster.members.map((m) => [m.id, m.enc]));
    const signed = await signGroupRoster(roster, owner.signing);
    const seal = await measure(`group of ${n}: seal`, () => sealFor(sender, others));
    const checked = await measure(`group of ${n}: roster check + seal`, () => {
      for (const o of others)
        if (rosterFingerprint(o.publicKey) !== bound.get(o.id)) throw new Error('bound');
      return sealFor(sender, others);
    });
    const alone = await measure(`group of ${n}: roster check alone`, () => {
      for (const o of others)
        if (rosterFingerprint(o.publicKey) !== bound.get(o.id)) throw new Error('bound');
    });
    const accept = await measure(`group of ${n}: accept roster`, () =>
      new GroupRosterBook().accept('c', signed, async () => owner.signing.publicKey),
    );
    rows.push([
      String(n),
      fmt(seal.opsPerSec),
      fmt(checked.opsPerSec),
      `${fmt((seal.opsPerSec / checked.opsPerSec - 1) * 100, 1)} %`,
      `${fmt((100 * seal.opsPerSec) / alone.opsPerSec, 2)} %`,
      fmt(accept.opsPerSec),
    ]);
  }
  printTable(
    'Signed roster cost (one core, same run)',
    ['members', 'seal/s (baseline)', 'check + seal/s', 'slower by', 'check alone / seal', 'roster accepts/s'],
    rows,
  );
}

export default async function (): Promise<void> {
  await sealCost();
  await rosterCost();
  await endToEnd();
}
