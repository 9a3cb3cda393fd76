/**
 * Signed human decisions (packages/sdk/src/crypto/decision.ts,
 * packages/sdk/src/core/protocol/decisions.ts): the canonical bytes are
 * domain-separated and independent of key order, a signature verifies only
 * under the signer's key and only for the exact statement, and the wire
 * parser refuses anything malformed without throwing (fuzzed).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  decisionSigningBytes,
  SignedDecisionSchema,
  type DecisionStatement,
} from '../../../packages/sdk/src/core/protocol/decisions.js';
import { generateKeys } from '../../../packages/sdk/src/crypto/index.js';
import { manifestSha256, signDecision, verifyDecision } from '../../../packages/sdk/src/crypto/decision.js';

const grantStatement: DecisionStatement = {
  v: 1,
  kind: 'grant.granted',
  agent_id: 'agent-1',
  signer_id: 'user-1',
  decided_at: '2026-03-01T12:00:00.000Z',
  grant_id: 'grant-1',
  conversation_id: 'conv-1',
  scope: 'profile.read',
  window_seconds: 600,
};

const manifestStatement: DecisionStatement = {
  v: 1,
  kind: 'manifest.accepted',
  agent_id: 'agent-1',
  signer_id: 'user-1',
  decided_at: '2026-03-01T12:00:00.000Z',
  version: 3,
  manifest_sha256: 'ab'.repeat(32),
};

describe('decisionSigningBytes', () => {
  it('is the label, a zero byte, then the canonical JSON (sorted keys, no whitespace)', () => {
    const bytes = decisionSigningBytes(manifestStatement);
    const text = new TextDecoder().decode(bytes);
    expect(text).toBe(
      'ams/decision/v1\u0000{"agent_id":"agent-1","decided_at":"2026-03-01T12:00:00.000Z","kind":"manifest.accepted",' +
        `"manifest_sha256":"${'ab'.repeat(32)}","signer_id":"user-1","v":1,"version":3}`,
    );
  });

  it('does not depend on the order of the keys', () => {
    const reversed = Object.fromEntries(Object.entries(grantStatement).reverse()) as DecisionStatement;
    expect(decisionSigningBytes(reversed)).toEqual(decisionSigningBytes(grantStatement));
  });
});

describe('signDecision / verifyDecision', () => {
  const keys = generateKeys();

  it("verifies under the signer's key, for both kinds of statement", async () => {
    for (const s of [grantStatement, manifestStatement]) {
      const signed = await signDecision(s, keys.signing);
      expect(SignedDecisionSchema.parse(signed)).toEqual(signed);
      expect(await verifyDecision(signed, keys.signing.publicKey)).toBe(true);
    }
  });

  it('refuses another key, and any changed field', async () => {
    const signed = await signDecision(grantStatement, keys.signing);
    expect(await verifyDecision(signed, generateKeys().signing.publicKey)).toBe(false);
    const changes: Partial<Record<string, unknown>>[] = [
      { kind: 'grant.denied' },
      { agent_id: 'agent-2' },
      { signer_id: 'user-2' },
      { grant_id: 'grant-2' },
      { conversation_id: 'conv-2' },
      { scope: 'conversations.list' },
      { window_seconds: 601 },
      { decided_at: '2026-03-01T12:00:01.000Z' },
    ];
    for (const change of changes) {
      const tampered = { ...signed, statement: { ...signed.statement, ...change } };
      expect(await verifyDecision(tampered, keys.signing.publicKey)).toBe(false);
    }
  });

  it('refuses malformed input without throwing (fuzzed)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.anything(), async (input) => {
        expect(await verifyDecision(input, keys.signing.publicKey)).toBe(false);
      }),
      { numRuns: 300 },
    );
  });

  it('refuses a well-formed statement with unknown fields or a bad signature encoding (fuzzed)', async () => {
    const signed = await signDecision(manifestStatement, keys.signing);
    await fc.assert(
      fc.asyncProperty(
        fc.string({ minLength: 1, maxLength: 12 }).filter((k) => !(k in signed.statement)),
        fc.jsonValue(),
        fc.string(),
        async (key, value, signature) => {
          const extra = { ...signed, statement: { ...signed.statement, [key]: value } };
          expect(SignedDecisionSchema.safeParse(extra).success).toBe(false);
          expect(await verifyDecision(extra, keys.signing.publicKey)).toBe(false);
          if (signature !== signed.signature) {
            expect(await verifyDecision({ ...signed, signature }, keys.signing.publicKey)).toBe(false);
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('manifestSha256', () => {
  it('hashes the canonical JSON: key order does not matter, content does', () => {
    const a = manifestSha256({ name: 'x', tools: [{ b: 1, a: 2 }] });
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(manifestSha256({ tools: [{ a: 2, b: 1 }], name: 'x' })).toBe(a);
    expect(manifestSha256({ name: 'y', tools: [{ a: 2, b: 1 }] })).not.toBe(a);
  });

  it('is SHA-256 of the canonical bytes (known vector: {})', () => {
    expect(manifestSha256({})).toBe('44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a');
  });
});
