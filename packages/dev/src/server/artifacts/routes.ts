/**
 * Artifact routes (paths from `ARTIFACT_ROUTES`). The content is sealed in
 * the artifact's messages; the body's other fields are routing metadata.
 *
 * | Route | Auth | Body | `data` |
 * |---|---|---|---|
 * | createArtifact | agent | `{ conversation_id, artifact_id, forwardable, sensitivity, ttl_ms?, tool_timeout_ms?, wire_envelope }` | 201 artifact view (revision 1); 200 when the same envelope is sent again |
 * | getArtifact | agent | | artifact view |
 * | updateArtifact | agent | `{ based_on_revision, forwardable, sensitivity, ttl_ms?, tool_timeout_ms?, wire_envelope }` | artifact view (revision + 1); 409 ARTIFACT_REVISION_CONFLICT (`params.current_revision`) |
 * | answerArtifact | a human member | `{ revision, wire_envelope }` (sealed `artifact_response`) | view plus `accepted` (false when the artifact was already closed) |
 *
 * Every route takes a one-to-one conversation or a group (see
 * `groups/caller-conversation.ts`): in a group the agent must be a member, a
 * revision goes to every other member, and any human member may answer; the
 * first answer closes the artifact, later ones get `accepted: false`.
 *
 * @module
 */
import { ARTIFACT_ROUTES } from 'agent-messaging-sdk/protocol';
import {
  ARTIFACT_LIMITS,
  AnswerArtifactRequestSchema,
  CreateArtifactRequestSchema,
  UpdateArtifactRequestSchema,
} from 'agent-messaging-sdk/protocol';
import { requireUnrestricted } from '../agents/governance.js';
import { existingAgent } from '../agents/service.js';
import type { ServerContext } from '../context.js';
import { fail, invalidField } from '../http/failure.js';
import { defineRoute, type Route } from '../http/router.js';
import { ok } from '../http/respond.js';
import { parseBody } from '../http/validation.js';
import type { AgentPrincipal } from '../http/types.js';
import {
  callersConversation,
  envelopeMembersOf,
  publishMessage,
  requireOpen,
} from '../groups/caller-conversation.js';
import { humanMembers } from '../groups/members.js';
import { checkEnvelope } from '../messages/envelope-check.js';
import { artifactsOf, artifactView, type ArtifactRecord } from './registry.js';
import { armWindows, denyByService, immediateDenial, markAnswered, toolOverdue } from './service.js';
import { z } from 'zod';

const bodyLimit = (ctx: { maxMessageBodyBytes: number }): number => ctx.maxMessageBodyBytes;

async function agentGuard(ctx: ServerContext, principal: AgentPrincipal): Promise<void> {
  requireUnrestricted(await existingAgent(ctx, principal.agentId));
  ctx.limits.enforce('messages', principal.agentId);
}

function ownArtifact(ctx: ServerContext, agentId: string, artifactId: string): ArtifactRecord {
  const r = artifactsOf(ctx).get(artifactId);
  if (r === undefined || r.agentId !== agentId) throw fail('NOT_FOUND', 'No such artifact.');
  return r;
}

const create = defineRoute({
  method: ARTIFACT_ROUTES.createArtifact.method,
  path: ARTIFACT_ROUTES.createArtifact.path,
  auth: 'agent',
  body: z.unknown(),
  maxBodyBytes: bodyLimit,
  guard: ({ ctx, principal }) => agentGuard(ctx, principal),
  async handler({ ctx, principal, body }) {
    const input = parseBody(CreateArtifactRequestSchema, body);
    const c = await callersConversation(ctx, principal, input.conversation_id);
    requireOpen(c);
    const registry = artifactsOf(ctx);
    const header = checkEnvelope(input.wire_envelope, {
      senderId: principal.agentId,
      conversationId: c.conversationId,
      members: await envelopeMembersOf(ctx, c),
    });
    const existing = registry.get(input.artifact_id);
    if (existing !== undefined) {
      if (existing.agentId === principal.agentId && existing.messageId === header.messageId)
        return ok(artifactView(existing));
      throw invalidField('artifact_id', 'duplicate_artifact_id', {}, 'Another artifact already has this id.');
    }
    const now = ctx.clock.now();
    const record: ArtifactRecord = {
      artifactId: input.artifact_id,
      conversationId: c.conversationId,
      agentId: principal.agentId,
      revision: 1,
      state: 'open',
      forwardable: input.forwardable,
      sensitivity: input.sensitivity,
      expiresAtMs: now + (input.ttl_ms ?? ARTIFACT_LIMITS.defaultTtlMs),
      toolTimeoutMs: input.tool_timeout_ms,
      revisedAtMs: now,
      messageId: header.messageId,
      reason: undefined,
      timers: new Map(),
    };
    registry.add(record);
    const denial = immediateDenial(input.tool_timeout_ms, (await humanMembers(ctx, c.conversationId)).length);
    if (denial !== undefined) {
      await denyByService(ctx, record, denial);
      return ok(artifactView(record), 201);
    }
    await publishMessage(ctx, c, principal.agentId, input.wire_envelope);
    armWindows(ctx, record);
    return ok(artifactView(record), 201);
  },
});

const read = defineRoute({
  method: ARTIFACT_ROUTES.getArtifact.method,
  path: ARTIFACT_ROUTES.getArtifact.path,
  auth: 'agent',
  handler: ({ ctx, principal, params }) =>
    ok(artifactView(ownArtifact(ctx, principal.agentId, params['artifact_id']!))),
});

const update = defineRoute({
  method: ARTIFACT_ROUTES.updateArtifact.method,
  path: ARTIFACT_ROUTES.updateArtifact.path,
  auth: 'agent',
  body: z.unknown(),
  maxBodyBytes: bodyLimit,
  guard: ({ ctx, principal }) => agentGuard(ctx, principal),
  async handler({ ctx, principal, params, body }) {
    const input = parseBody(UpdateArtifactRequestSchema, body);
    const r = ownArtifact(ctx, principal.agentId, params['artifact_id']!);
    const c = await callersConversation(ctx, principal, r.conversationId);
    requireOpen(c);
    const header = checkEnvelope(input.wire_envelope, {
      senderId: principal.agentId,
      conversationId: c.conversationId,
      members: await envelopeMembersOf(ctx, c),
    });
    // Checked and bumped with no await in between: one of two concurrent updates wins.
    if (input.based_on_revision !== r.revision) {
      throw fail('ARTIFACT_REVISION_CONFLICT', 'The artifact has a newer revision: re-read it and retry.', {
        current_revision: r.revision,
        based_on_revision: input.based_on_revision,
      });
    }
    if (r.state !== 'open') {
      throw fail('VALIDATION_ERROR', `The artifact is ${r.state}; it cannot be updated.`, {
        reason: 'artifact_closed',
        state: r.state,
      });
    }
    if ((input.tool_timeout_ms === undefined) !== (r.toolTimeoutMs === undefined)) {
      throw invalidField(
        'tool_timeout_ms',
        'kind_changed',
        {},
        'An update cannot change whether it is a tool request.',
      );
    }
    r.revision += 1;
    r.forwardable = input.forwardable;
    r.sensitivity = input.sensitivity;
    r.toolTimeoutMs = input.tool_timeout_ms;
    r.revisedAtMs = ctx.clock.now();
    if (input.ttl_ms !== undefined) r.expiresAtMs = r.revisedAtMs + input.ttl_ms;
    r.messageId = header.messageId;
    artifactsOf(ctx).linkMessage(r, header.messageId);
    await publishMessage(ctx, c, principal.agentId, input.wire_envelope);
    armWindows(ctx, r);
    return ok(artifactView(r));
  },
});

const answer = defineRoute({
  method: ARTIFACT_ROUTES.answerArtifact.method,
  path: ARTIFACT_ROUTES.answerArtifact.path,
  auth: 'user',
  body: AnswerArtifactRequestSchema,
  maxBodyBytes: bodyLimit,
  async handler({ ctx, principal, params, body }) {
    const c = await callersConversation(ctx, principal, params['id']!);
    const r = artifactsOf(ctx).get(params['artifact_id']!);
    if (r === undefined || r.conversationId !== c.conversationId)
      throw fail('NOT_FOUND', 'No such artifact.');
    const header = checkEnvelope(body.wire_envelope, {
      senderId: principal.userId,
      conversationId: c.conversationId,
      members: await envelopeMembersOf(ctx, c),
    });
    if (r.state === 'open' && toolOverdue(r, ctx.clock.now())) await denyByService(ctx, r, 'tool_timeout');
    if (r.state !== 'open') return ok({ ...artifactView(r), accepted: false });
    if (body.revision !== r.revision) {
      throw fail('ARTIFACT_REVISION_CONFLICT', 'The artifact has a newer revision: answer that one.', {
        current_revision: r.revision,
        based_on_revision: body.revision,
      });
    }
    markAnswered(ctx, r);
    ctx.delivery.enqueue(r.agentId, {
      type: 'artifact_response',
      wireEnvelope: body.wire_envelope,
      metadata: {
        conversation_id: c.conversationId,
        sender_id: principal.userId,
        created_at: header.createdAt,
      },
      messageId: header.messageId,
    });
    return ok({ ...artifactView(r), accepted: true });
  },
});

/** Artifact routes. */
export const artifactRoutes: readonly Route[] = [create, read, update, answer];
