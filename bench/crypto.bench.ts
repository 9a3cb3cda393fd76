/**
 * Envelope crypto v1.1: seal / open throughput, the cost of the v1.1 checks, beside the raw primitive pipeline
 * measured in the same run, the portable backend beside node:crypto, the async
 * path with many messages in flight, and the measurements behind the backend
 * choices (key import, HKDF, what is signed). Run: npx tsx bench/run.ts crypto
 */
import * as c from 'node:crypto';
import os from 'node:os';
import { generateKeys, type AgentKeys } from '../packages/sdk/src/crypto/keys.js';
import {
  open,
  openAsync,
  openPayloadBytes,
  OpenWorkerPool,
  autoWorkerCount,
  type OpenOptions,
} from '../packages/sdk/src/crypto/index.js';
import { seal, sealAsync, sealPayloadBytes } from '../packages/sdk/src/crypto/seal.js';
import type { SealOptions } from '../packages/sdk/src/crypto/seal-options.js';
import { ENVELOPE_REF_MAX_BYTES } from '../packages/sdk/src/crypto/envelope-wire.js';
import { constantTimeEqual, deriveCommitted } from '../packages/sdk/src/crypto/key-schedule.js';
import { portableBackend } from '../packages/sdk/src/crypto/backend/portable.js';
import { nodeBackend } from '../packages/sdk/src/crypto/backend/node.js';
import { ed25519VerifyStrict } from '../packages/sdk/src/crypto/ed25519-rules.js';
import { ed25519 as noble } from '@noble/curves/ed25519.js';
import type { CryptoBackend, RawKeyPair } from '../packages/sdk/src/crypto/backend/types.js';
import { deliveryRefusal } from '../packages/sdk/src/messaging/delivery-checks.js';
import { ghostKeyWarning } from '../packages/sdk/src/messaging/ghost-keys.js';
import { attributeForward } from '../packages/sdk/src/messaging/forward-attribution.js';
import { keyFingerprint } from '../packages/sdk/src/crypto/keys.js';
import { RecentMessageIds } from '../packages/sdk/src/client/recent-ids.js';
import { systemClock } from '../packages/sdk/src/core/clock.js';
import { fmt, measure, printTable } from './lib/harness.js';

const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 3);
const IN_FLIGHT = 64;
const b64url = (x: Uint8Array): string => Buffer.from(x).toString('base64url');

type Fn = () => unknown;

/** Runs each function ROUNDS times, interleaved, and keeps the median ops/s of each. */
async function paired(fns: readonly Fn[], batch = 1): Promise<number[]> {
  const runs: number[][] = fns.map(() => []);
  for (let r = 0; r < ROUNDS; r++) {
    for (const [i, fn] of fns.entries()) runs[i]!.push((await measure(`#${i}`, fn)).opsPerSec * batch);
  }
  return runs.map((xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!);
}

/** The raw open pipeline on node:crypto: one Ed25519 verify, one X25519, HKDF (2 HMAC), two AES-GCM. */
function primitivePipeline(sender: AgentKeys, me: AgentKeys, payloadBytes: number): Fn {
  const edPriv = c.createPrivateKey({
    key: {
      kty: 'OKP',
      crv: 'Ed25519',
      d: b64url(sender.signing.privateKey),
      x: b64url(sender.signing.publicKey),
    },
    format: 'jwk',
  });
  const edPub = c.createPublicKey(edPriv);
  const xPriv = c.createPrivateKey({
    key: {
      kty: 'OKP',
      crv: 'X25519',
      d: b64url(me.encryption.privateKey),
      x: b64url(me.encryption.publicKey),
    },
    format: 'jwk',
  });
  const eph = b64url(generateKeys().encryption.publicKey);
  const msg = c.randomBytes(57);
  const sig = c.sign(null, msg, edPriv);
  const key = c.randomBytes(32);
  const iv = c.randomBytes(12);
  const gcm = (pt: Buffer): [Buffer, Buffer] => {
    const e = c.createCipheriv('aes-256-gcm', key, iv);
    return [Buffer.concat([e.update(pt), e.final()]), e.getAuthTag()];
  };
  const unseal = ([ct, tag]: [Buffer, Buffer]): Buffer => {
    const d = c.createDecipheriv('aes-256-gcm', key, iv);
    d.setAuthTag(tag);
    return Buffer.concat([d.update(ct), d.final()]);
  };
  const wrap = gcm(c.randomBytes(32));
  const content = gcm(c.randomBytes(payloadBytes));
  return () => {
    if (!c.verify(null, msg, edPub, sig)) throw new Error('verify');
    const pub = c.createPublicKey({ key: { kty: 'OKP', crv: 'X25519', x: eph }, format: 'jwk' });
    const ss = c.diffieHellman({ privateKey: xPriv, publicKey: pub });
    c.createHmac('sha256', c.createHmac('sha256', key).update(ss).digest()).update(msg).digest();
    unseal(wrap);
    unseal(content);
  };
}

interface Scenario {
  readonly name: string;
  readonly sender: AgentKeys;
  readonly me: AgentKeys;
  readonly seal: SealOptions;
  readonly open: OpenOptions;
  readonly payload: { type: string; text: string };
  readonly wire: string;
  readonly bytes: number;
}

function scenario(name: string, recipients: number, bytes: number): Scenario {
  const sender = generateKeys();
  const keys = Array.from({ length: recipients }, () => generateKeys());
  const me = keys[0]!;
  const sealOptions: SealOptions = {
    sender: { id: 'agent-sender', signing: sender.signing },
    recipients: keys.map((k, i) => ({ id: `r-${i}`, publicKey: k.encryption.publicKey })),
    conversationId: 'conv-bench',
    maxEnvelopeBytes: ENVELOPE_REF_MAX_BYTES,
  };
  const payload = { type: 'text', text: 'x'.repeat(Math.max(0, bytes - 25)) };
  const openOptions = {
    recipientId: 'r-0',
    keys: me,
    senderKey: sender.signing.publicKey,
    maxEnvelopeBytes: ENVELOPE_REF_MAX_BYTES,
  };
  return {
    name,
    sender,
    me,
    seal: sealOptions,
    open: openOptions,
    payload,
    wire: seal(payload, sealOptions),
    bytes,
  };
}

const ratio = (x: number, base: number): string => `${fmt(x / base, 2)}×`;

/** CPU time of the whole process (every thread) per operation, µs, over ~1 s of calls of `fn` (`perCall` ops each). */
async function cpuPerOp(fn: Fn, perCall: number): Promise<number> {
  const start = process.cpuUsage();
  const until = Date.now() + Number(process.env['BENCH_MS'] ?? 1000);
  let ops = 0;
  while (Date.now() < until) {
    await fn();
    ops += perCall;
  }
  const used = process.cpuUsage(start);
  return (used.user + used.system) / ops;
}

async function openTable(scenarios: readonly Scenario[]): Promise<void> {
  const rows: string[][] = [];
  for (const s of scenarios) {
    const [base, sync, portable] = await paired([
      primitivePipeline(s.sender, s.me, s.bytes),
      () => open(s.wire, s.open),
      () => openAsync(s.wire, { ...s.open, backend: portableBackend }),
    ]);
    rows.push([s.name, fmt(base!), fmt(sync!), ratio(sync!, base!), fmt(portable!), ratio(portable!, base!)]);
  }
  printTable(
    'open per second, one message at a time (baseline: primitive pipeline on node:crypto)',
    ['envelope', 'pipeline/s', 'open (node)/s', 'vs pipeline', 'openAsync (portable)/s', 'vs pipeline'],
    rows,
  );
}

async function sealTable(scenarios: readonly Scenario[]): Promise<void> {
  const rows: string[][] = [];
  for (const s of scenarios) {
    const [base, sync, portable] = await paired([
      primitivePipeline(s.sender, s.me, s.bytes),
      () => seal(s.payload, s.seal),
      () => sealAsync(s.payload, { ...s.seal, backend: portableBackend }),
    ]);
    rows.push([s.name, fmt(base!), fmt(sync!), ratio(sync!, base!), fmt(portable!), ratio(portable!, base!)]);
  }
  printTable(
    'seal per second (baseline: the same open primitive pipeline)',
    ['envelope', 'pipeline/s', 'seal (node)/s', 'vs pipeline', 'sealAsync (portable)/s', 'vs pipeline'],
    rows,
  );
}

/** Control: raw Ed25519 verify, sync vs many in flight on the pool, shows how much parallelism the machine gives now. */
function verifyControl(s: Scenario): [Fn, Fn] {
  const priv = c.createPrivateKey({
    key: {
      kty: 'OKP',
      crv: 'Ed25519',
      d: b64url(s.sender.signing.privateKey),
      x: b64url(s.sender.signing.publicKey),
    },
    format: 'jwk',
  });
  const pub = c.createPublicKey(priv);
  const msg = c.randomBytes(57);
  const sig = c.sign(null, msg, priv);
  const one = (): Promise<boolean> =>
    new Promise((resolve) => c.verify(null, msg, pub, sig, (_e, ok) => resolve(ok)));
  return [() => c.verify(null, msg, pub, sig), () => Promise.all(Array.from({ length: IN_FLIGHT }, one))];
}

/** The alternative we rejected: node:crypto, but X25519 through crypto.subtle (on the pool) in the async path. */
function subtleX25519Backend(): CryptoBackend {
  const node = nodeBackend()!;
  const subtle = globalThis.crypto.subtle;
  const privates = new WeakMap<Uint8Array, Promise<CryptoKey>>();
  const jwk = (kp: RawKeyPair): JsonWebKey => ({
    kty: 'OKP',
    crv: 'X25519',
    d: b64url(kp.privateKey),
    x: b64url(kp.publicKey),
  });
  const x25519 = async (kp: RawKeyPair, peer: Uint8Array): Promise<Uint8Array | undefined> => {
    let priv = privates.get(kp.privateKey);
    if (priv === undefined) {
      priv = subtle.importKey('jwk', jwk(kp), { name: 'X25519' }, false, ['deriveBits']);
      privates.set(kp.privateKey, priv);
    }
    const pub = await subtle.importKey('raw', new Uint8Array(peer), { name: 'X25519' }, false, []);
    return new Uint8Array(await subtle.deriveBits({ name: 'X25519', public: pub }, await priv, 256));
  };
  return { ...node, name: 'node+subtle-x25519', sync: undefined, async: { ...node.async, x25519 } };
}

async function inFlightTable(s: Scenario): Promise<void> {
  const many = (fn: () => Promise<unknown>) => () => Promise.all(Array.from({ length: IN_FLIGHT }, fn));
  const [verifySync, verifyPool] = verifyControl(s);
  const alt = { ...s.open, backend: subtleX25519Backend() };
  // Worker pools started (and warmed) before they are measured: 'auto' as the Agent runs it, and
  // one worker per core (the calling thread then only hands envelopes over).
  const auto = new OpenWorkerPool({ workers: 'auto' });
  const perCore = new OpenWorkerPool({ workers: os.availableParallelism() });
  for (const p of [auto, perCore]) {
    const until = Date.now() + 3000;
    while (p.stats().openedInWorkers < 2000 && Date.now() < until) {
      await Promise.all(Array.from({ length: IN_FLIGHT }, () => p.open(s.wire, s.open)));
    }
  }
  const [base, sync, serialAsync, parallel, parallelAlt, vSync, vPool, pooled, pooledPerCore] = await paired([
    primitivePipeline(s.sender, s.me, s.bytes),
    () => open(s.wire, s.open),
    () => openAsync(s.wire, s.open),
    many(() => openAsync(s.wire, s.open)),
    many(() => openAsync(s.wire, alt)),
    verifySync,
    verifyPool,
    many(() => auto.open(s.wire, s.open)),
    many(() => perCore.open(s.wire, s.open)),
  ]);
  // CPU time per open, all threads of the process (workers and libuv's pool included): unlike ops/s,
  // not inflated or deflated by other processes on a shared machine. 2 cores / this = the ceiling.
  const cpu = {
    base: await cpuPerOp(primitivePipeline(s.sender, s.me, s.bytes), 1),
    sync: await cpuPerOp(() => open(s.wire, s.open), 1),
    async64: await cpuPerOp(
      many(() => openAsync(s.wire, s.open)),
      IN_FLIGHT,
    ),
    auto: await cpuPerOp(
      many(() => auto.open(s.wire, s.open)),
      IN_FLIGHT,
    ),
    perCore: await cpuPerOp(
      many(() => perCore.open(s.wire, s.open)),
      IN_FLIGHT,
    ),
  };
  const autoStats = auto.stats();
  await auto.close();
  await perCore.close();
  const pool64 = pooled! * IN_FLIGHT;
  const perCore64 = pooledPerCore! * IN_FLIGHT;
  const parAlt = parallelAlt! * IN_FLIGHT;
  const par = parallel! * IN_FLIGHT;
  const pool = vPool! * IN_FLIGHT;
  printTable(
    `open with ${IN_FLIGHT} messages in flight, ${s.name} (${os.availableParallelism()} cores, UV_THREADPOOL_SIZE=${process.env['UV_THREADPOOL_SIZE'] ?? 4})`,
    ['path', 'ops/s', 'vs baseline', 'CPU µs/open (all threads)'],
    [
      ['primitive pipeline (sync, one core) — baseline', fmt(base!), '1.00×', fmt(cpu.base, 0)],
      ['open (sync)', fmt(sync!), ratio(sync!, base!), fmt(cpu.sync, 0)],
      ['openAsync, one at a time', fmt(serialAsync!), ratio(serialAsync!, base!)],
      [`openAsync, ${IN_FLIGHT} in flight`, fmt(par), ratio(par, base!), fmt(cpu.async64, 0)],
      [
        `OpenWorkerPool 'auto' (${autoWorkerCount()} workers), ${IN_FLIGHT} in flight`,
        fmt(pool64),
        ratio(pool64, base!),
        fmt(cpu.auto, 0),
      ],
      [
        `OpenWorkerPool, ${os.availableParallelism()} workers forced, ${IN_FLIGHT} in flight`,
        fmt(perCore64),
        ratio(perCore64, base!),
        fmt(cpu.perCore, 0),
      ],
      [`rejected: X25519 via crypto.subtle too, ${IN_FLIGHT} in flight`, fmt(parAlt), ratio(parAlt, base!)],
      ['control: raw Ed25519 verify, sync — baseline', fmt(vSync!), '1.00×'],
      [`control: raw Ed25519 verify, ${IN_FLIGHT} in flight on the pool`, fmt(pool), ratio(pool, vSync!)],
    ],
  );
  const share = autoStats.openedInWorkers / (autoStats.openedInWorkers + autoStats.openedInThread);
  const cores = os.availableParallelism();
  console.log(
    `\n'auto' opened ${fmt(share * 100, 0)} % of its envelopes on the workers, the rest on this thread. ` +
      `Target (issue #16): the pool ≥ 1.7× the one-core pipeline with 2 cores. CPU-bound ceiling on ` +
      `${cores} idle cores (cores / CPU per open, vs the baseline's 1 / CPU per pipeline): ` +
      `'auto' ${fmt((cores * cpu.base) / cpu.auto, 2)}×, forced ${fmt((cores * cpu.base) / cpu.perCore, 2)}×, ` +
      `openAsync ${IN_FLIGHT} in flight ${fmt((cores * cpu.base) / cpu.async64, 2)}× ` +
      `(the last bounded in practice by its one thread doing all but the verify).\n`,
  );
}

/**
 * What the issue #17 checks cost on a 1 KB open: v1.1 (key commitment: one
 * HKDF-Extract and two Expands, a constant-time compare) beside legacy v1.0,
 * and v1.1 plus the receivers' delivery checks (event type and sender,
 * acceptance window) and the UserClient's de-duplication memory.
 */
async function checksTable(s: Scenario): Promise<void> {
  const legacy = seal(s.payload, { ...s.seal, version: '1.0' });
  const recent = new RecentMessageIds(systemClock);
  let n = 0;
  const fullCheck = (): void => {
    const opened = open(s.wire, s.open);
    if (deliveryRefusal(opened, 'message.new', Date.now()) !== undefined) throw new Error('refused');
    recent.add(opened.senderId, `m-${n++}`);
  };
  // The added work alone (stable on a busy machine, unlike a difference of two noisy opens).
  const node = nodeBackend()!.sync;
  const ck = c.randomBytes(32);
  const h = c.randomBytes(32);
  const signed = deriveCommitted(node, ck, h).commitment;
  const commitmentOnly = (): void => {
    if (!constantTimeEqual(deriveCommitted(node, ck, h).commitment, signed)) throw new Error('commitment');
  };
  const opened = open(s.wire, s.open);
  const checksOnly = (): void => {
    if (deliveryRefusal(opened, 'message.new', Date.now()) !== undefined) throw new Error('refused');
    recent.add(opened.senderId, `c-${n++}`);
  };
  // #24: the receivers' added checks on an ordinary message (ghost detector, forward attribution,
  // the system-payload rule), alone and on top of the open with the #17 checks.
  const me = s.open.recipientId;
  const checks24 = async (o: ReturnType<typeof open>): Promise<void> => {
    const own = new Set([keyFingerprint(s.me.encryption.publicKey)]);
    if (ghostKeyWarning(o, me, own) !== undefined) throw new Error('ghost');
    if ((await attributeForward(o.payload, o.senderId, () => Promise.resolve(undefined))) !== undefined)
      throw new Error('forwarded');
  };
  const fullCheck24 = async (): Promise<void> => {
    const o = open(s.wire, s.open);
    if (deliveryRefusal(o, 'message.new', Date.now()) !== undefined) throw new Error('refused');
    recent.add(o.senderId, `f-${n++}`);
    await checks24(o);
  };
  const checks24Only = (): Promise<void> => checks24(opened);
  const rounds = Math.max(ROUNDS, 7);
  const runs: number[][] = [[], [], [], [], [], [], []];
  const fns: Fn[] = [
    () => open(legacy, { ...s.open, acceptLegacyV10: true }),
    () => open(s.wire, s.open),
    fullCheck,
    commitmentOnly,
    checksOnly,
    fullCheck24,
    checks24Only,
  ];
  for (let r = 0; r < rounds; r++) {
    for (const [i, fn] of fns.entries()) runs[i]!.push((await measure(`#${i}`, fn)).opsPerSec);
  }
  const [v10, v11, checked, commitOps, checkOps, checked24, check24Ops] = runs.map(
    (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!,
  );
  const cost = (x: number): string => `${fmt((v10! / x - 1) * 100, 1)} %`;
  const share = (ops: number): string => `${fmt((v10! / ops) * 100, 1)} %`;
  printTable(
    `open, ${s.name}: cost of the issue #17 and #24 receiver checks (median of ${rounds} interleaved rounds)`,
    ['path', 'open/s', 'µs per open', 'time vs v1.0'],
    [
      ['open v1.0 (legacy, no commitment) — baseline', fmt(v10!), fmt(1e6 / v10!, 1), '0.0 %'],
      ['open v1.1 (key commitment)', fmt(v11!), fmt(1e6 / v11!, 1), cost(v11!)],
      ['open v1.1 + event type, window, dedup memory', fmt(checked!), fmt(1e6 / checked!, 1), cost(checked!)],
      [
        'added work alone: commitment, AEAD key, compare',
        fmt(commitOps!),
        fmt(1e6 / commitOps!, 1),
        share(commitOps!),
      ],
      [
        'added work alone: type, window, dedup memory',
        fmt(checkOps!),
        fmt(1e6 / checkOps!, 1),
        share(checkOps!),
      ],
      [
        'open v1.1 + #17 checks + #24 checks (ghost, forward, system payload)',
        fmt(checked24!),
        fmt(1e6 / checked24!, 1),
        cost(checked24!),
      ],
      [
        'added work alone: #24 checks (ghost detector, forward attribution)',
        fmt(check24Ops!),
        fmt(1e6 / check24Ops!, 1),
        share(check24Ops!),
      ],
    ],
  );
}

export default async function (): Promise<void> {
  const small = scenario('1 KB, 1 recipient', 1, 1024);
  if (process.env['BENCH_ONLY'] === 'inflight') return inFlightTable(small);
  if (process.env['BENCH_ONLY'] === 'checks') return checksTable(small);
  if (process.env['BENCH_ONLY'] === 'sizes') return sizesTable();
  const group = scenario('1 KB, 10 recipients', 10, 1024);
  const large = scenario('1 MB, 1 recipient', 1, 1_048_576);
  await openTable([small, group, large]);
  await sealTable([small, group, large]);
  await sizesTable();
  await checksTable(small);
  await inFlightTable(small);
  await choicesTable();
}

/** The measurements behind the backend choices, each beside its alternative. */
async function choicesTable(): Promise<void> {
  const k = generateKeys();
  const jwk = { kty: 'OKP', crv: 'X25519', x: b64url(k.encryption.publicKey) };
  const der = c.createPublicKey({ key: jwk, format: 'jwk' }).export({ format: 'der', type: 'spki' });
  const edPriv = c.createPrivateKey({
    key: { kty: 'OKP', crv: 'Ed25519', d: b64url(k.signing.privateKey), x: b64url(k.signing.publicKey) },
    format: 'jwk',
  });
  const edPub = c.createPublicKey(edPriv);
  const mb = c.randomBytes(1_048_576);
  const sigMb = c.sign(null, mb, edPriv);
  const digestMsg = Buffer.concat([
    Buffer.from('ams/envelope/v1/signature'),
    c.createHash('sha256').update(mb).digest(),
  ]);
  const sigDigest = c.sign(null, digestMsg, edPriv);
  const ikm = c.randomBytes(32);
  const salt = c.randomBytes(64);
  const info = c.randomBytes(54);
  const subtle = globalThis.crypto.subtle;
  const subtleEd = await subtle.importKey(
    'raw',
    new Uint8Array(k.signing.publicKey),
    { name: 'Ed25519' },
    false,
    ['verify'],
  );
  const small = c.randomBytes(57);
  const sigSmall = c.sign(null, small, edPriv);
  const pairs: [string, Fn, string, Fn][] = [
    [
      'import X25519 public key: JWK',
      () => c.createPublicKey({ key: jwk, format: 'jwk' }),
      'SPKI DER',
      () => c.createPublicKey({ key: der, format: 'der', type: 'spki' }),
    ],
    [
      'HKDF-SHA256 L=32: two HMAC calls',
      () => c.createHmac('sha256', c.createHmac('sha256', salt).update(ikm).digest()).update(info).digest(),
      'hkdfSync',
      () => c.hkdfSync('sha256', ikm, salt, info, 32),
    ],
    [
      '1 MB: SHA-256 + verify 57 B (ours)',
      () =>
        c.verify(
          null,
          Buffer.concat([digestMsg.subarray(0, 25), c.createHash('sha256').update(mb).digest()]),
          edPub,
          sigDigest,
        ),
      'verify over 1 MB',
      () => c.verify(null, mb, edPub, sigMb),
    ],
    [
      'Ed25519 verify: node:crypto sync',
      () => c.verify(null, small, edPub, sigSmall),
      'WebCrypto (await)',
      () => subtle.verify({ name: 'Ed25519' }, subtleEd, sigSmall, small),
    ],
    [
      'Ed25519 verify: SDK rule + node:crypto (backend, key cached)',
      () => nodeBackend()!.sync.ed25519Verify(k.signing.publicKey, small, sigSmall),
      'node:crypto alone',
      () => c.verify(null, small, edPub, sigSmall),
    ],
    [
      'Ed25519 verify: SDK rule in JS (cofactorless, key cached)',
      () => ed25519VerifyStrict(k.signing.publicKey, small, sigSmall),
      '@noble verify, zip215: false',
      () => noble.verify(sigSmall, small, k.signing.publicKey, { zip215: false }),
    ],
  ];
  const rows: string[][] = [];
  for (const [nameA, a, nameB, b] of pairs) {
    const [x, y] = await paired([a, b]);
    rows.push([nameA, fmt(x!), nameB, fmt(y!), ratio(x!, y!)]);
  }
  printTable(
    'Backend choices (same run)',
    ['chosen', 'ops/s', 'alternative', 'ops/s', 'chosen / alternative'],
    rows,
  );
}

/**
 * The raw construction on node:crypto, as cheap as it can be written: what `open` must compute for one
 * envelope of `bytes` (SHA-256 of the signed body, one Ed25519 verify, X25519, HKDF for the wrap
 * key and the v1.1 commitment, AES-GCM of the wrap and of the content), without any encoding.
 */
function constructionOpen(s: Scenario): Fn {
  const env = Buffer.from(s.wire, 'base64');
  const body = env.subarray(0, env.length - 64);
  const edPub = c.createPublicKey({
    key: { kty: 'OKP', crv: 'Ed25519', x: b64url(s.sender.signing.publicKey) },
    format: 'jwk',
  });
  const edPriv = c.createPrivateKey({
    key: {
      kty: 'OKP',
      crv: 'Ed25519',
      d: b64url(s.sender.signing.privateKey),
      x: b64url(s.sender.signing.publicKey),
    },
    format: 'jwk',
  });
  const label = Buffer.from('ams/envelope/v1/signature');
  const sig = c.sign(null, Buffer.concat([label, c.createHash('sha256').update(body).digest()]), edPriv);
  const xPriv = c.createPrivateKey({
    key: {
      kty: 'OKP',
      crv: 'X25519',
      d: b64url(s.me.encryption.privateKey),
      x: b64url(s.me.encryption.publicKey),
    },
    format: 'jwk',
  });
  const eph = b64url(generateKeys().encryption.publicKey);
  const key = c.randomBytes(32);
  const iv = c.randomBytes(12);
  const aad = c.randomBytes(32);
  const gcm = (pt: Buffer): [Buffer, Buffer] => {
    const e = c.createCipheriv('aes-256-gcm', key, iv);
    e.setAAD(aad);
    return [Buffer.concat([e.update(pt), e.final()]), e.getAuthTag()];
  };
  const unseal = ([ct, tag]: [Buffer, Buffer]): Buffer => {
    const d = c.createDecipheriv('aes-256-gcm', key, iv);
    d.setAAD(aad);
    d.setAuthTag(tag);
    const out = d.update(ct);
    d.final();
    return out;
  };
  const wrap = gcm(c.randomBytes(32));
  const content = gcm(c.randomBytes(s.bytes));
  const hmac = (k: Buffer, d: Buffer): Buffer => c.createHmac('sha256', k).update(d).digest();
  return () => {
    const digest = c.createHash('sha256').update(body).digest();
    if (!c.verify(null, Buffer.concat([label, digest]), edPub, sig)) throw new Error('verify');
    const pub = c.createPublicKey({ key: { kty: 'OKP', crv: 'X25519', x: eph }, format: 'jwk' });
    const ss = c.diffieHellman({ privateKey: xPriv, publicKey: pub });
    hmac(hmac(key, ss), aad);
    unseal(wrap);
    hmac(key, label);
    hmac(key, aad);
    unseal(content);
  };
}

/**
 * The raw construction of `seal` on node:crypto: an ephemeral X25519 key, one agreement, HKDF for the
 * wrap key and the v1.1 commitment, AES-GCM of the wrap and of the content, SHA-256 of the body and
 * one Ed25519 signature, without any encoding.
 */
function constructionSeal(s: Scenario): Fn {
  const edPriv = c.createPrivateKey({
    key: {
      kty: 'OKP',
      crv: 'Ed25519',
      d: b64url(s.sender.signing.privateKey),
      x: b64url(s.sender.signing.publicKey),
    },
    format: 'jwk',
  });
  const peer = c.createPublicKey({
    key: { kty: 'OKP', crv: 'X25519', x: b64url(s.me.encryption.publicKey) },
    format: 'jwk',
  });
  const label = Buffer.from('ams/envelope/v1/signature');
  const aad = c.randomBytes(32);
  const plaintext = c.randomBytes(s.bytes);
  const hmac = (k: Buffer, d: Buffer): Buffer => c.createHmac('sha256', k).update(d).digest();
  const gcm = (key: Buffer, iv: Buffer, pt: Buffer): Buffer => {
    const e = c.createCipheriv('aes-256-gcm', key, iv);
    e.setAAD(aad);
    const ct = e.update(pt);
    e.final();
    return Buffer.concat([ct, e.getAuthTag()]);
  };
  return () => {
    const eph = c.generateKeyPairSync('x25519');
    const ss = c.diffieHellman({ privateKey: eph.privateKey, publicKey: peer });
    const ck = c.randomBytes(32);
    const iv = c.randomBytes(12);
    const wrap = gcm(hmac(hmac(aad, ss), aad), iv, ck);
    hmac(ck, label);
    const ct = gcm(hmac(ck, aad), iv, plaintext);
    const digest = c.createHash('sha256').update(wrap).update(ct).digest();
    c.sign(null, Buffer.concat([label, digest]), edPriv);
  };
}

/** Wall-clock and CPU rate of one function over one round (sync functions only). */
interface Rates {
  readonly wall: number;
  /** Operations per second of CPU time of the whole process (user + system, GC threads included). */
  readonly cpu: number;
}

/** Runs `fn` (sync) for about BENCH_MS after a warm-up, measuring wall time and process CPU time. */
function rates(fn: Fn): Rates {
  const ms = Number(process.env['BENCH_MS'] ?? 1000);
  const run = (budget: number): [number, number, number] => {
    const cpu0 = process.cpuUsage();
    const start = performance.now();
    let n = 0;
    while (performance.now() - start < budget) {
      fn();
      n++;
    }
    const cpu = process.cpuUsage(cpu0);
    return [n, performance.now() - start, (cpu.user + cpu.system) / 1000];
  };
  run(Math.min(300, ms / 3));
  const [n, wallMs, cpuMs] = run(ms);
  return { wall: (n / wallMs) * 1000, cpu: (n / cpuMs) * 1000 };
}

/** ROUNDS interleaved rounds of every function; the median wall and CPU rate of each. */
function pairedRates(fns: readonly Fn[]): Rates[] {
  const runs: Rates[][] = fns.map(() => []);
  for (let r = 0; r < ROUNDS; r++) for (const [i, fn] of fns.entries()) runs[i]!.push(rates(fn));
  const median = (xs: number[]): number => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  return runs.map((xs) => ({ wall: median(xs.map((x) => x.wall)), cpu: median(xs.map((x) => x.cpu)) }));
}

/**
 * Issue #16: seal and open per size beside the raw construction they must compute (same run,
 * interleaved rounds, medians). The default `seal` / `open` carry a JSON object payload as a
 * base64 `wire_envelope` string; `sealPayloadBytes` / `openPayloadBytes` carry UTF-8 JSON bytes
 * in raw envelope bytes. Each ratio is given twice: by wall time, and by CPU time (per CPU-second of
 * the process), which stays meaningful on a machine shared with other work.
 */
async function sizesTable(): Promise<void> {
  const sizes: [string, number][] = [
    ['1 KB', 1024],
    ['64 KB', 65_536],
    ['1 MB', 1_048_576],
  ];
  const rows: string[][] = [];
  for (const [label, bytes] of sizes) {
    const s = scenario(`${label}, 1 recipient`, 1, bytes);
    const envelope = Buffer.from(s.wire, 'base64');
    const json = Buffer.from(JSON.stringify(s.payload));
    const [limitOpen, opened, openedRaw, limitSeal, sealed, sealedRaw] = pairedRates([
      constructionOpen(s),
      () => open(s.wire, s.open),
      () => openPayloadBytes(envelope, s.open),
      constructionSeal(s),
      () => seal(s.payload, s.seal),
      () => sealPayloadBytes(json, s.seal),
    ]);
    const row = (path: string, limit: Rates, x: Rates): string[] => [
      path,
      fmt(limit.wall),
      fmt(x.wall),
      ratio(x.wall, limit.wall),
      fmt(limit.cpu),
      fmt(x.cpu),
      ratio(x.cpu, limit.cpu),
    ];
    rows.push(row(`open ${label}: object, wire string`, limitOpen!, opened!));
    rows.push(row(`openPayloadBytes ${label}: envelope bytes`, limitOpen!, openedRaw!));
    rows.push(row(`seal ${label}: object, wire string`, limitSeal!, sealed!));
    rows.push(row(`sealPayloadBytes ${label}: JSON bytes`, limitSeal!, sealedRaw!));
  }
  await Promise.resolve();
  printTable(
    `seal / open by size beside the raw node:crypto construction (median of ${ROUNDS} interleaved rounds)`,
    [
      'path',
      'construction/s',
      'path/s',
      'vs construction',
      'construction/CPU-s',
      'path/CPU-s',
      'vs construction (CPU)',
    ],
    rows,
  );
}
