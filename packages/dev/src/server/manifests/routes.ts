/**
 * Capability manifests (gap routes, see `MANIFEST_ROUTES`).
 *
 * | Method | Path | Auth | Body | `data` |
 * |---|---|---|---|---|
 * | GET | /agents/:id/manifest | the agent or its owner | | `{ agent_id, head_version, current, pending, last_decided }` |
 * | PUT | /agents/:id/manifest | the agent | `{ manifest, based_on_version }` | 202: the pending revision |
 * | POST | /agents/:id/manifest/decision | the owner | `{ version, decision: 'accepted' \| 'rejected', signed_decision }` | the decided revision |
 *
 * Order of the checks of an update: size (413 MANIFEST_TOO_LARGE, `params.size_bytes`,
 * `params.max_bytes`), fields (400 VALIDATION_ERROR), version (409
 * MANIFEST_VERSION_CONFLICT, `params.head_version`), rate (429
 * MANIFEST_UPDATE_RATE_LIMITED with Retry-After): only updates that pass every
 * other check count against the 1-per-minute limit. A decision sends
 * `agent.capability_changed` `{ agent_id, version, decision, signed_decision }`,
 * sealed by the system sender, by WebSocket or webhook; `signed_decision` is the
 * owner's statement, checked here and relayed unchanged (the agent verifies it).
 *
 * @module
 */
import { z } from 'zod';
import { LIMITS } from 'agent-messaging-sdk/protocol';
import {
  CapabilityManifestSchema,
  ManifestDecisionSchema,
  manifestSizeBytes,
  manifestSizeVerdict,
  manifestSha256,
  SignedDecisionSchema,
} from 'agent-messaging-sdk/protocol';
import { checkSignedDecision } from '../decisions/signed-decision.js';
import { MANIFEST_ROUTES } from 'agent-messaging-sdk/protocol';
import { sendSystemEvent } from '../agents/system-events.js';
import { ownedAgent } from '../agents/service.js';
import { fail } from '../http/failure.js';
import { defineRoute, type Route } from '../http/router.js';
import { ok } from '../http/respond.js';
import { parseBody } from '../http/validation.js';
import { manifestsOf, manifestStateView, revisionView, type ManifestRevisionRecord } from './state.js';

/** Body cap of an update: room for a 128 KB manifest written with escapes and whitespace. */
export const MANIFEST_BODY_MAX_BYTES = 4 * LIMITS.MANIFEST_MAX_BYTES;

const UpdateSchema = z.strictObject({
  manifest: z.unknown(),
  based_on_version: z.number().int().min(0),
});
const DecisionSchema = z.strictObject({
  version: z.number().int().min(1),
  decision: ManifestDecisionSchema,
  /** The owner's signed statement of this decision (relayed to the agent, which verifies it). */
  signed_decision: SignedDecisionSchema,
});

const read = defineRoute({
  method: MANIFEST_ROUTES.getManifest.method,
  path: MANIFEST_ROUTES.getManifest.path,
  auth: 'user_or_agent',
  async handler({ ctx, principal, params }) {
    const agentId = params['id']!;
    if (principal.kind === 'user') await ownedAgent(ctx, principal.userId, agentId);
    else if (principal.agentId !== agentId) throw fail('FORBIDDEN', 'An agent reads only its own manifest.');
    return ok(manifestStateView(agentId, manifestsOf(ctx, agentId)));
  },
});

const update = defineRoute({
  method: MANIFEST_ROUTES.updateManifest.method,
  path: MANIFEST_ROUTES.updateManifest.path,
  auth: 'agent',
  body: z.unknown(),
  maxBodyBytes: MANIFEST_BODY_MAX_BYTES,
  async handler({ ctx, principal, body }) {
    const input = parseBody(UpdateSchema, body);
    const sizeBytes = manifestSizeBytes(input.manifest ?? null);
    if (manifestSizeVerdict(sizeBytes) === 'too_large') {
      throw fail(
        'MANIFEST_TOO_LARGE',
        `The manifest is ${sizeBytes} bytes; at most ${LIMITS.MANIFEST_MAX_BYTES}.`,
        {
          size_bytes: sizeBytes,
          max_bytes: LIMITS.MANIFEST_MAX_BYTES,
        },
      );
    }
    const manifest = parseBody(CapabilityManifestSchema, input.manifest);
    const m = manifestsOf(ctx, principal.agentId);
    if (input.based_on_version !== m.head) {
      throw fail('MANIFEST_VERSION_CONFLICT', 'The manifest changed since that version: re-read and retry.', {
        head_version: m.head,
        based_on_version: input.based_on_version,
      });
    }
    ctx.limits.enforce('manifestUpdates', principal.agentId);
    const now = ctx.clock.now();
    if (m.pending !== undefined) {
      m.pending.status = 'superseded';
      m.pending.decidedAtMs = now;
    }
    const revision: ManifestRevisionRecord = {
      version: m.head + 1,
      manifest,
      sizeBytes,
      sizeWarning: manifestSizeVerdict(sizeBytes) === 'warn',
      status: 'pending',
      submittedAtMs: now,
      decidedAtMs: undefined,
    };
    m.head = revision.version;
    m.pending = revision;
    if (revision.sizeWarning)
      ctx.logger.warn(`manifest of agent ${principal.agentId} is ${sizeBytes} bytes (≥ 64 KB)`);
    // The dev console's user feed: the owner's page reads the agent's requests again.
    if (ctx.consoleFeed.watchingAnyUser()) {
      const owner = (await ctx.store.agents.get(principal.agentId))?.ownerId;
      if (owner !== undefined) ctx.consoleFeed.tellUser(owner, 'requests_changed', principal.agentId, now);
    }
    return ok(revisionView(revision), 202);
  },
});

const decide = defineRoute({
  method: MANIFEST_ROUTES.decideManifest.method,
  path: MANIFEST_ROUTES.decideManifest.path,
  auth: 'user',
  body: DecisionSchema,
  async handler({ ctx, principal, params, body }) {
    const agent = await ownedAgent(ctx, principal.userId, params['id']!);
    const m = manifestsOf(ctx, agent.agentId);
    const pending = m.pending;
    if (pending === undefined || pending.version !== body.version) {
      throw fail('MANIFEST_VERSION_CONFLICT', 'That version is not the pending change: re-read it.', {
        head_version: m.head,
        pending_version: pending?.version ?? null,
      });
    }
    const signed = await checkSignedDecision(ctx, principal.userId, body.signed_decision, {
      kind: `manifest.${body.decision}`,
      agent_id: agent.agentId,
      version: pending.version,
      manifest_sha256: manifestSha256(pending.manifest),
    });
    pending.status = body.decision;
    pending.decidedAtMs = ctx.clock.now();
    m.pending = undefined;
    m.lastDecided = pending;
    if (body.decision === 'accepted') m.current = pending;
    await sendSystemEvent(ctx, agent.agentId, 'agent.capability_changed', {
      agent_id: agent.agentId,
      version: pending.version,
      decision: body.decision,
      // The owner's own signed statement, relayed unchanged: the agent verifies it.
      signed_decision: signed,
    });
    return ok(revisionView(pending));
  },
});

/** Capability manifest routes. */
export const manifestRoutes: readonly Route[] = [read, update, decide];
