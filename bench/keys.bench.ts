/**
 * Key-directory look-ups with key succession statements (#24), beside the
 * same look-up without statements measured in the same run:
 *
 * - `no statements, no pins` (the baseline): the service's answer parsed with its
 *   schema and decoded, as every look-up did before; `no statements, pinned`:
 *   the same checked against a pin (its unvouched retired key left out);
 * - `with statements, pin unchanged`: the same answer carrying one retired
 *   generation and its statement (parsed and decoded, not verified: the pin
 *   already follows it): the cost every look-up now pays;
 * - `rotation seen` : the first look-up after a rotation (a pin at the old
 *   generation, the statement verified, the pin updated): paid once per
 *   rotation and peer;
 * - `verifyKeyStatement` alone.
 *
 * The `look-up` cases use a 0 ms cache, so every call parses the service's
 * answer (what each fetch costs); the `cached` ones use the default 5-minute
 * cache (what each send costs). Run: npx tsx bench/run.ts keys
 */
import { toBase64 } from '../packages/sdk/src/core/encoding.js';
import { generateKeys, keyFingerprint, type AgentKeys } from '../packages/sdk/src/crypto/keys.js';
import {
  keyStatementToWire,
  signKeyStatement,
  verifyKeyStatement,
  keyStatementFromWire,
} from '../packages/sdk/src/crypto/key-statement.js';
import { createKeyDirectory, type KeySource } from '../packages/sdk/src/messaging/key-directory.js';
import { KeyPins } from '../packages/sdk/src/messaging/key-pins.js';
import { PrincipalKeysSchema, type PrincipalKeys } from '../packages/sdk/src/messaging/wire/keys.js';
import { fmt, measure, printTable } from './lib/harness.js';

const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 3);
const ID = 'agent-1';

function wire(current: AgentKeys, previous?: AgentKeys, withStatement = false): unknown {
  const now = Date.now();
  const statement =
    previous === undefined || !withStatement
      ? undefined
      : keyStatementToWire(
          signKeyStatement(
            {
              subject: ID,
              generation: 2,
              encryption: current.encryption.publicKey,
              signing: current.signing.publicKey,
              previousKeyId: keyFingerprint(previous.encryption.publicKey),
              issuedAtMs: now,
            },
            previous.signing,
          ),
        );
  return {
    id: ID,
    kind: 'agent',
    public_key: toBase64(current.encryption.publicKey),
    signing_public_key: toBase64(current.signing.publicKey),
    key_id: keyFingerprint(current.encryption.publicKey),
    retired:
      previous === undefined
        ? []
        : [
            {
              public_key: toBase64(previous.encryption.publicKey),
              signing_public_key: toBase64(previous.signing.publicKey),
              key_id: keyFingerprint(previous.encryption.publicKey),
              valid_until: new Date(now + 6 * 86_400_000).toISOString(),
              retired_at: new Date(now).toISOString(),
            },
          ],
    generation: statement === undefined ? 1 : 2,
    ...(statement === undefined ? {} : { key_statements: [statement] }),
  };
}

const source = (json: unknown): KeySource => ({
  publicKeys: async () => PrincipalKeysSchema.parse(json) as PrincipalKeys,
  systemKeys: async () => PrincipalKeysSchema.parse(json) as PrincipalKeys,
  conversation: async () => {
    throw new Error('unused');
  },
});

export default async function run(): Promise<void> {
  const [g1, g2] = [generateKeys(), generateKeys()];
  const plain = wire(g2, g1, false);
  const signed = wire(g2, g1, true);

  // Baseline: the answer without statements, decoded as before (no pins to check against).
  const dirA = createKeyDirectory({ api: source(plain), ttlMs: 0 });
  await dirA.keys(ID);
  // Pinned at g2 on first sight, answer without statements (its retired key refused, reported once).
  const dirA2 = createKeyDirectory({ api: source(plain), ttlMs: 0, pins: new KeyPins() });
  await dirA2.keys(ID);
  // Pinned at g2 (through the statement), answer with the statement.
  const pinsB = new KeyPins();
  await createKeyDirectory({ api: source(wire(g1)), ttlMs: 0, pins: pinsB }).keys(ID);
  const dirB = createKeyDirectory({ api: source(signed), ttlMs: 0, pins: pinsB });
  await dirB.keys(ID);
  // The same two through the directory's cache (5 minutes): what each send pays.
  const cachedA = createKeyDirectory({ api: source(plain), pins: new KeyPins() });
  await cachedA.keys(ID);
  const cachedB = createKeyDirectory({ api: source(signed), pins: pinsB });
  await cachedB.keys(ID);
  // Rotation seen: a fresh pin at g1 each time, then the answer with the statement.
  const first = wire(g1);
  const rotation = async (): Promise<void> => {
    const pins = new KeyPins();
    await pins.check({
      id: ID,
      kind: 'agent',
      signing: g1.signing.publicKey,
      encryption: g1.encryption.publicKey,
      retired: [],
    });
    const dir = createKeyDirectory({ api: source(signed), ttlMs: 0, pins });
    const k = await dir.keys(ID);
    if (k.retired.length !== 1) throw new Error('rotation not followed');
  };
  void first;
  const st = keyStatementFromWire(
    (signed as { key_statements: Parameters<typeof keyStatementFromWire>[0][] }).key_statements[0]!,
  );
  const prev = { signing: g1.signing.publicKey, encryption: g1.encryption.publicKey };

  const cases: [string, () => unknown][] = [
    ['look-up, no statements, no pins (baseline)', () => dirA.keys(ID)],
    ['look-up, no statements, pinned', () => dirA2.keys(ID)],
    ['look-up, with statements, pin unchanged', () => dirB.keys(ID)],
    ['cached look-up, no statements', () => cachedA.keys(ID)],
    ['cached look-up, with statements', () => cachedB.keys(ID)],
    ['look-up, rotation seen (statement verified)', rotation],
    ['verifyKeyStatement alone', () => verifyKeyStatement(st, prev)],
  ];
  const best = new Map<string, number>();
  for (let r = 0; r < ROUNDS; r++) {
    for (const [name, fn] of cases) {
      const m = await measure(name, fn);
      best.set(name, Math.max(best.get(name) ?? 0, m.opsPerSec));
    }
  }
  const base = best.get(cases[0]![0])!;
  printTable(
    'Key-directory look-ups (best of rounds, same run)',
    ['case', 'ops/s', 'µs/op', 'vs baseline'],
    cases.map(([name]) => {
      const ops = best.get(name)!;
      return [name, fmt(ops), fmt(1e6 / ops, 1), `${fmt((ops / base) * 100, 0)} %`];
    }),
  );
}
