/**
 * Public-key lookup, `GET /keys/:principal_id` (user or agent token).
 *
 * Allowed for: the caller itself, `system`, the two sides of a conversation
 * whose relation is established or suspended, two members of one group, and
 * an agent's owner. Anything
 * else, unknown ids included, is 403 KEY_ENUMERATION_BLOCKED, so the answer
 * never reveals whether an id exists.
 *
 * Answer: `{ id, kind, public_key, signing_public_key, key_id, signing_key_id, retired, generation, key_statements }`.
 * `key_statements` are the key succession statements the agent uploaded with
 * its current generation and the retired ones listed, newest first, exactly
 * as uploaded (clients verify them; docs/keys.md).
 * For agents, `retired` lists key generations still in their grace
 * (`{ public_key, signing_public_key, key_id, valid_until }`); senders must
 * wrap to the current key and may add the retired ones. An agent without
 * live keys is 404 AGENT_PUBKEY_NOT_FOUND; a user without a key backup 404
 * KEY_BACKUP_NOT_FOUND.
 *
 * @module
 */
import { fromBase64 } from 'agent-messaging-sdk/protocol';
import { keyFingerprint } from 'agent-messaging-sdk/protocol';
import type { ServerContext } from '../context.js';
import { shareGroup } from '../groups/members.js';
import { fail } from '../http/failure.js';
import type { AnyPrincipal } from '../http/types.js';
import type { AgentRecord } from '../store/agent-types.js';
import { liveKeys } from './records.js';
import { SYSTEM_SENDER_ID } from './system-sender.js';

const fingerprint = (b64: string | undefined): string | null => {
  const bytes = b64 === undefined ? undefined : fromBase64(b64);
  return bytes?.length === 32 ? keyFingerprint(bytes) : null;
};

async function mayLookUp(ctx: ServerContext, principal: AnyPrincipal, targetId: string): Promise<boolean> {
  const callerId = principal.kind === 'user' ? principal.userId : principal.agentId;
  if (targetId === callerId) return true;
  const pairs =
    principal.kind === 'user'
      ? (await ctx.store.conversations.listByUser(callerId)).filter((c) => c.agentId === targetId)
      : (await ctx.store.conversations.listByAgent(callerId)).filter((c) => c.userId === targetId);
  if (pairs.some((c) => c.state !== 'revoked')) return true;
  if (await shareGroup(ctx, callerId, targetId)) return true;
  if (principal.kind !== 'user') return false;
  return (await ctx.store.agents.get(targetId))?.ownerId === callerId;
}

function agentKeys(ctx: ServerContext, agent: AgentRecord) {
  const [current, ...retired] = liveKeys(agent, ctx.clock.now());
  if (current === undefined) throw fail('AGENT_PUBKEY_NOT_FOUND', 'This agent has no registered public key.');
  return {
    id: agent.agentId,
    kind: 'agent',
    public_key: current.publicKey,
    signing_public_key: current.signingPublicKey,
    key_id: current.keyId,
    signing_key_id: current.signingKeyId,
    // Generations are newest first: each was retired when the one before it in the list registered.
    retired: retired.map((k, i) => ({
      public_key: k.publicKey,
      signing_public_key: k.signingPublicKey,
      key_id: k.keyId,
      valid_until: new Date(k.validUntilMs!).toISOString(),
      retired_at: new Date((i === 0 ? current : retired[i - 1]!).registeredAtMs).toISOString(),
    })),
    generation: current.generation ?? 1,
    key_statements: [current, ...retired].flatMap((k) => (k.statement === undefined ? [] : [k.statement])),
  };
}

/**
 * The public keys of `targetId` as the caller may see them.
 *
 * @throws {@link ServerFailure} KEY_ENUMERATION_BLOCKED, AGENT_PUBKEY_NOT_FOUND or KEY_BACKUP_NOT_FOUND.
 */
export async function lookupKeys(ctx: ServerContext, principal: AnyPrincipal, targetId: string) {
  if (targetId === SYSTEM_SENDER_ID) return ctx.system.keys();
  if (!(await mayLookUp(ctx, principal, targetId))) {
    throw fail('KEY_ENUMERATION_BLOCKED', 'Public keys are only available to conversation members.');
  }
  const agent = await ctx.store.agents.get(targetId);
  if (agent !== undefined) return agentKeys(ctx, agent);
  const backup = await ctx.store.keyBackups.get(targetId);
  if (backup === undefined) throw fail('KEY_BACKUP_NOT_FOUND', 'This user has not uploaded a key backup.');
  const record = backup.record as { public_key: string; signing_public_key?: string };
  return {
    id: targetId,
    kind: 'user',
    public_key: record.public_key,
    signing_public_key: record.signing_public_key ?? null,
    key_id: fingerprint(record.public_key),
    signing_key_id: fingerprint(record.signing_public_key),
    retired: [],
  };
}
