/**
 * Registering and checking an agent's public keys with a proof of
 * possession (see `key-proof.ts`).
 *
 * Rules of `PUT /agents/:id/keys`:
 * - only the agent's current token may register (a token in grace → 403
 *   FORBIDDEN `reason: token_in_grace`);
 * - the same keys again → 200, nothing changes;
 * - different keys while keys are registered and no regeneration is pending
 *   → 409 AGENT_KEYS_MISMATCH, unless the body says `replace: true`: the
 *   agent lost the registered private keys (the spec's self-heal: wipe,
 *   regenerate, re-register), so the new pair becomes current and the replaced
 *   pair is dropped at once (it has no grace: nobody holds its private key);
 * - after a regeneration the new pair must differ from every live pair
 *   (VALIDATION_ERROR `reason: keys_reused`); the old pair stays valid until
 *   its grace end (7 days after a normal regeneration);
 * - a `key_statement` (key succession statement, docs/keys.md) is accepted
 *   only with a regeneration pending and a current generation to succeed:
 *   its subject, keys, `previous_key_id` and generation must match (else
 *   VALIDATION_ERROR `field: key_statement`); its signature is not verified
 *   here (clients verify it against their pins). It is stored with the new
 *   generation as received and served by `GET /keys/:id`.
 *
 * @module
 */
import { fromBase64, type KeyStatementWire } from 'agent-messaging-sdk/protocol';
import { keyFingerprint } from 'agent-messaging-sdk/protocol';
import type { ServerContext } from '../context.js';
import { fail, invalidField, type ServerFailure } from '../http/failure.js';
import type { AgentPrincipal } from '../http/types.js';
import type { AgentKeyGeneration, AgentRecord } from '../store/agent-types.js';
import { type KeyProofFields, verifyKeyProof } from './key-proof.js';
import { refuseUnacceptableSigningKey } from '../keys/signing-key.js';
import { currentKey, isLive, liveKeys } from './records.js';

/** Decoded, verified proof fields. */
interface ProvenKeys {
  readonly publicKey: string;
  readonly signingPublicKey: string;
}

function decode(field: string, text: string, bytes: number): Uint8Array {
  const out = fromBase64(text);
  if (out?.length !== bytes) throw invalidField(field, 'invalid_format', { bytes });
  return out;
}

/**
 * Checks the proof fields against the agent's challenge.
 *
 * @throws {@link ServerFailure} VALIDATION_ERROR (bad encoding; an unacceptable signing
 * key, see `refuseUnacceptableSigningKey`; `challenge` unknown, used or
 * expired) or INVALID_SIGNATURE (`reason: signature | key_proof`).
 */
export function proveKeys(ctx: ServerContext, agentId: string, body: KeyProofFields): ProvenKeys {
  const fields = {
    publicKey: decode('public_key', body.public_key, 32),
    signingPublicKey: decode('signing_public_key', body.signing_public_key, 32),
    signature: decode('signature', body.signature, 64),
    keyProof: decode('key_proof', body.key_proof, 32),
  };
  refuseUnacceptableSigningKey(fields.signingPublicKey);
  const issued = ctx.keyChallenges.take(agentId, body.challenge);
  if (issued === undefined) {
    throw invalidField('challenge', 'unknown_or_expired', {}, 'The challenge is unknown, used or expired.');
  }
  const check = verifyKeyProof(issued, fields);
  if (check !== 'ok') {
    throw fail('INVALID_SIGNATURE', 'The proof of possession does not verify.', { reason: check });
  }
  return { publicKey: body.public_key, signingPublicKey: body.signing_public_key };
}

const sameKeys = (k: AgentKeyGeneration, p: ProvenKeys): boolean =>
  k.publicKey === p.publicKey && k.signingPublicKey === p.signingPublicKey;

type Refusal = 'token_in_grace' | 'keys_registered' | 'keys_reused' | 'statement_mismatch';

/** Whether `statement` names exactly the proven keys as the successor of `current`. */
function statementFits(
  agentId: string,
  statement: KeyStatementWire,
  current: AgentKeyGeneration | undefined,
  proven: ProvenKeys,
): boolean {
  return (
    current !== undefined &&
    statement.subject === agentId &&
    statement.public_key === proven.publicKey &&
    statement.signing_public_key === proven.signingPublicKey &&
    statement.previous_key_id === current.keyId &&
    statement.generation === (current.generation ?? 1) + 1
  );
}

function applyKeys(
  agent: AgentRecord,
  tokenId: string,
  proven: ProvenKeys,
  now: number,
  options: { readonly replace: boolean; readonly statement: KeyStatementWire | undefined },
): AgentRecord | Refusal {
  const { replace, statement } = options;
  const token = agent.tokens.find((t) => t.tokenId === tokenId);
  if (token === undefined || token.validUntilMs !== undefined) return 'token_in_grace';
  const current = currentKey(agent, now);
  if (current !== undefined && sameKeys(current, proven) && !agent.keyRotationPending) return agent;
  if (current !== undefined && !agent.keyRotationPending && !replace) return 'keys_registered';
  if (liveKeys(agent, now).some((k) => sameKeys(k, proven))) return 'keys_reused';
  if (
    statement !== undefined &&
    (!agent.keyRotationPending || !statementFits(agent.agentId, statement, current, proven))
  )
    return 'statement_mismatch';
  const newest = [agent.keys, ...agent.retiredKeys].reduce(
    (n, k) => Math.max(n, k === undefined ? 0 : (k.generation ?? 1)),
    0,
  );
  const generation: AgentKeyGeneration = {
    ...proven,
    keyId: keyFingerprint(fromBase64(proven.publicKey)!),
    signingKeyId: keyFingerprint(fromBase64(proven.signingPublicKey)!),
    registeredAtMs: now,
    validUntilMs: undefined,
    generation: newest + 1,
    ...(statement === undefined ? {} : { statement }),
  };
  const retired = [...(current === undefined ? [] : [current]), ...agent.retiredKeys].filter(
    (k) => k.validUntilMs !== undefined && isLive(k, now),
  );
  return { ...agent, keys: generation, retiredKeys: retired, keyRotationPending: false };
}

function refusal(reason: Refusal): ServerFailure {
  if (reason === 'token_in_grace') {
    return fail('FORBIDDEN', 'Only the current agent token may register keys.', { reason });
  }
  if (reason === 'keys_registered') {
    return fail(
      'AGENT_KEYS_MISMATCH',
      'Other keys are registered for this agent; keys change only after a token regeneration.',
      { reason },
    );
  }
  if (reason === 'statement_mismatch') {
    return invalidField(
      'key_statement',
      reason,
      {},
      'The key statement does not name these keys as the successor of the current generation.',
    );
  }
  return invalidField('public_key', reason, {}, 'A regenerated token needs a new key pair.');
}

/**
 * Registers proven keys for the calling agent.
 *
 * @returns the registered generation and whether it changed anything.
 * @throws {@link ServerFailure} as described in the module summary.
 */
export async function registerKeys(
  ctx: ServerContext,
  principal: AgentPrincipal,
  body: KeyProofFields,
  options: { readonly replace?: boolean; readonly statement?: KeyStatementWire | undefined } = {},
): Promise<{ readonly keys: AgentKeyGeneration; readonly changed: boolean }> {
  const proven = proveKeys(ctx, principal.agentId, body);
  const now = ctx.clock.now();
  let changed = false;
  const result = await ctx.store.agents.update<Refusal>(principal.agentId, (agent) => {
    const next = applyKeys(agent, principal.tokenId, proven, now, {
      replace: options.replace === true,
      statement: options.statement,
    });
    if (typeof next === 'string') return { refused: next };
    changed = next !== agent;
    return next;
  });
  if (result === undefined) throw fail('AGENT_NOT_FOUND', 'No such agent.');
  if ('refused' in result) throw refusal(result.refused);
  return { keys: result.keys!, changed };
}

/**
 * Checks that the caller's proven local keys are a live registered generation.
 *
 * @throws {@link ServerFailure} AGENT_NOT_REGISTERED (no live keys) or AGENT_KEYS_MISMATCH (409).
 */
export async function checkKeys(
  ctx: ServerContext,
  principal: AgentPrincipal,
  body: KeyProofFields,
): Promise<{ readonly generation: 'current' | 'retired'; readonly keys: AgentKeyGeneration }> {
  const proven = proveKeys(ctx, principal.agentId, body);
  const agent = await ctx.store.agents.get(principal.agentId);
  const now = ctx.clock.now();
  const live = agent === undefined ? [] : liveKeys(agent, now);
  if (live.length === 0) throw fail('AGENT_NOT_REGISTERED', 'This agent has not registered its keys.');
  const match = live.find((k) => sameKeys(k, proven));
  if (match === undefined) {
    throw fail(
      'AGENT_KEYS_MISMATCH',
      'The local keys differ from the registered keys. Wipe the local key store and register new keys.',
    );
  }
  const current = agent === undefined ? undefined : currentKey(agent, now);
  return { generation: match === current ? 'current' : 'retired', keys: match };
}
