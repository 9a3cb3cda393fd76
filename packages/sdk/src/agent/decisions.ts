/**
 * Human decisions checked before any handler sees them (the pipeline's
 * `vet` step, on the WebSocket and the webhook path alike):
 *
 * - `artifact_response`: see {@link AgentArtifacts.vetResponse} (a human the
 *   current revision was sealed for, that revision, a signed event type);
 * - `grant.decided`, `grant.revoked`: the payload's `signed_decision` must be
 *   signed by the grant's user (the one human member of the grant's
 *   conversation, as the key directory lists it) and say what the event says;
 * - `agent.capability_changed`: signed by the agent's owner (option
 *   `ownerId`, else `owner_id` of `GET /agents/:id`, read once), for that
 *   version, and, when this process proposed the version, for the manifest
 *   it proposed (SHA-256 of its canonical JSON).
 *
 * The system sender only relays these decisions: it seals the event, the
 * human signs the decision inside it.
 *
 * @module
 */
import { isAmsError } from '../core/errors/guards.js';
import { dispositionOf } from '../core/errors/codes.js';
import {
  SignedDecisionSchema,
  type DecisionStatement,
  type SignedDecision,
} from '../core/protocol/decisions.js';
import { GrantDecidedPayloadSchema } from '../core/protocol/grants.js';
import { CapabilityChangedPayloadSchema } from '../core/protocol/manifest.js';
import { MAX_CLOCK_SKEW_MS, MAX_ENVELOPE_AGE_MS } from '../crypto/freshness.js';
import { verifyDecision } from '../crypto/decision.js';
import type { CryptoBackend } from '../crypto/backend/types.js';
import type { OpenedEnvelope } from '../crypto/open-options.js';
import type { Clock } from '../core/clock.js';
import type { PeerKeys } from '../messaging/key-directory.js';
import type { AnyAgentEvent, ArtifactResponseEvent, DecisionRefusalReason } from './events.js';
import type { VetRefusal } from './pipeline/types.js';

/** A grant this process asked for, as it asked it. */
export interface AskedGrant {
  readonly conversationId: string;
  readonly scope: string;
  readonly windowSeconds: number;
}

/** What {@link createDecisionVetter} needs. */
export interface DecisionVetterDeps {
  readonly agentId: string;
  readonly clock: Clock;
  /** A peer's keys (pinned). */
  readonly keys: (peerId: string) => Promise<PeerKeys>;
  /** The members of a conversation as the key directory knows them. */
  readonly members: (conversationId: string) => Promise<readonly string[]>;
  /** The agent's owner id (the configured one, or the service's, read once). */
  readonly ownerId: () => Promise<string | undefined>;
  /** A grant this process asked for, if it remembers it. */
  readonly asked: (grantId: string) => AskedGrant | undefined;
  /** SHA-256 (hex) of the manifest this process proposed as `version`, if it remembers it. */
  readonly proposed: (version: number) => string | undefined;
  /** The artifact check. */
  readonly artifacts: {
    vetResponse(
      e: ArtifactResponseEvent,
      opened: Pick<OpenedEnvelope, 'eventType'>,
    ): Promise<VetRefusal | undefined>;
  };
  readonly backend?: CryptoBackend | undefined;
}

/** The vet step of the pipeline. */
export type DecisionVetter = (
  event: AnyAgentEvent,
  opened: OpenedEnvelope,
) => Promise<VetRefusal | undefined>;

/** A lookup failure that says nothing about the signer (the event comes again): rethrown. */
function transient(err: unknown): boolean {
  if (!isAmsError(err)) return true;
  if (err.kind === 'transport' || err.kind === 'timeout' || err.kind === 'rate_limit') return true;
  return dispositionOf(err.code, err.status) === 'retry';
}

/**
 * Creates the vet step.
 *
 * @example
 * ```ts
 * const vet = createDecisionVetter({ agentId, clock, keys, members, ownerId, asked, proposed, artifacts });
 * const refusal = await vet(event, opened); // undefined: hand it to the handlers
 * ```
 */
export function createDecisionVetter(d: DecisionVetterDeps): DecisionVetter {
  async function signedBy(
    signed: SignedDecision,
    signerId: string,
    subject: string,
  ): Promise<VetRefusal | undefined> {
    const refuse = (reason: DecisionRefusalReason): VetRefusal => ({ reason, subject });
    if (signed.statement.signer_id !== signerId) return refuse('wrong_signer');
    let keys: PeerKeys;
    try {
      keys = await d.keys(signerId);
    } catch (err) {
      if (transient(err)) throw err;
      return refuse('signer_unknown');
    }
    if (keys.kind !== 'user' || keys.signing === undefined) return refuse('signer_unknown');
    if (!(await verifyDecision(signed, keys.signing, d.backend))) return refuse('bad_signature');
    const decidedAt = Date.parse(signed.statement.decided_at);
    const now = d.clock.now();
    if (!(decidedAt >= now - MAX_ENVELOPE_AGE_MS && decidedAt <= now + MAX_CLOCK_SKEW_MS))
      return refuse('stale');
    return undefined;
  }

  /** The one human member of a one-to-one conversation (the grant's user), if there is exactly one. */
  async function userOf(conversationId: string): Promise<string | undefined> {
    let members: readonly string[];
    try {
      members = await d.members(conversationId);
    } catch (err) {
      if (transient(err)) throw err;
      return undefined;
    }
    const humans: string[] = [];
    for (const id of members) {
      if (id === d.agentId) continue;
      try {
        if ((await d.keys(id)).kind === 'user') humans.push(id);
      } catch (err) {
        if (transient(err)) throw err;
      }
    }
    return humans.length === 1 ? humans[0] : undefined;
  }

  function statementOf(payload: Readonly<Record<string, unknown>>): SignedDecision | undefined {
    const parsed = SignedDecisionSchema.safeParse(payload['signed_decision']);
    return parsed.success ? parsed.data : undefined;
  }

  async function grantEvent(type: 'grant.decided' | 'grant.revoked', p: Readonly<Record<string, unknown>>) {
    const subject = typeof p['grant_id'] === 'string' ? p['grant_id'] : undefined;
    const refuse = (reason: DecisionRefusalReason): VetRefusal => ({ reason, subject });
    const signed = statementOf(p);
    if (signed === undefined) return refuse('unsigned');
    const s: DecisionStatement = signed.statement;
    if (s.kind !== 'grant.granted' && s.kind !== 'grant.denied' && s.kind !== 'grant.revoked')
      return refuse('mismatch');
    const decided = type === 'grant.decided' ? GrantDecidedPayloadSchema.safeParse(p) : undefined;
    if (decided !== undefined && !decided.success) return refuse('mismatch');
    const kind = decided === undefined ? 'grant.revoked' : `grant.${decided.data!.decision}`;
    if (
      s.kind !== kind ||
      s.grant_id !== subject ||
      s.agent_id !== d.agentId ||
      s.scope !== p['scope'] ||
      s.conversation_id !== p['conversation_id'] ||
      (p['user_id'] !== undefined && s.signer_id !== p['user_id'])
    )
      return refuse('mismatch');
    const asked = d.asked(s.grant_id);
    if (
      asked !== undefined &&
      (asked.conversationId !== s.conversation_id ||
        asked.scope !== s.scope ||
        (s.kind === 'grant.granted' && s.window_seconds > asked.windowSeconds))
    )
      return refuse('mismatch');
    if (s.kind === 'grant.granted' && decided?.data?.expires_at != null) {
      // The service starts the window at the decision: it may not end later than the human allowed.
      const expires = Date.parse(decided.data.expires_at);
      const latest = Date.parse(s.decided_at) + s.window_seconds * 1000 + MAX_CLOCK_SKEW_MS;
      if (!(expires <= latest)) return refuse('mismatch');
    }
    const user = await userOf(s.conversation_id);
    if (user === undefined) return refuse('wrong_signer');
    return signedBy(signed, user, s.grant_id);
  }

  async function capabilityEvent(p: Readonly<Record<string, unknown>>): Promise<VetRefusal | undefined> {
    const parsed = CapabilityChangedPayloadSchema.safeParse(p);
    const subject = parsed.success ? String(parsed.data.version) : undefined;
    const refuse = (reason: DecisionRefusalReason): VetRefusal => ({ reason, subject });
    if (!parsed.success) return refuse('mismatch');
    const signed = statementOf(p);
    if (signed === undefined) return refuse('unsigned');
    const s = signed.statement;
    if (
      s.kind !== `manifest.${parsed.data.decision}` ||
      s.kind.startsWith('grant.') ||
      !('version' in s) ||
      s.version !== parsed.data.version ||
      s.agent_id !== d.agentId ||
      parsed.data.agent_id !== d.agentId
    )
      return refuse('mismatch');
    const proposed = d.proposed(s.version);
    if (proposed !== undefined && proposed !== s.manifest_sha256) return refuse('mismatch');
    const owner = await d.ownerId();
    if (owner === undefined) return refuse('signer_unknown');
    return signedBy(signed, owner, String(s.version));
  }

  return async (event, opened) => {
    switch (event.type) {
      case 'artifact_response':
        return d.artifacts.vetResponse(event as ArtifactResponseEvent, opened);
      case 'grant.decided':
      case 'grant.revoked':
        return grantEvent(event.type, event.payload as Readonly<Record<string, unknown>>);
      case 'agent.capability_changed':
        return capabilityEvent(event.payload as Readonly<Record<string, unknown>>);
      default:
        return undefined;
    }
  };
}
