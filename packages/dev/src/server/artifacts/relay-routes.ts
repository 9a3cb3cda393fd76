/**
 * Reactions and forwarding (paths from `ARTIFACT_ROUTES`). Both carry only
 * ciphertext: a reaction is sealed by the reacting member, a forwarded copy
 * is re-sealed by the forwarder's client for each target conversation.
 *
 * | Route | Auth | Body | `data` |
 * |---|---|---|---|
 * | react | member | `{ message_id, wire_envelope }` (sealed `reaction.update`) | 202 `{ delivered }`: relayed to every other member's open WebSocket (never stored, never by webhook); true when at least one got it |
 * | forward | member | `{ source: { conversation_id, message_id }, targets: [{ conversation_id, wire_envelope }] }` | 201 `{ forwarded: [{ conversation_id, message_id, seq }] }` |
 *
 * Forward rules, in order: more than 10 targets → 400 FORWARD_TARGET_LIMIT
 * (`params.max`, `params.count`); the source must be a message of a
 * conversation of the caller (MESSAGE_NOT_FOUND); a message of an artifact
 * whose current revision is not forwardable → 403 ARTIFACT_NOT_FORWARDABLE;
 * every target must be an established conversation of the caller or a group
 * the caller is a member of, and its envelope must fit it, all checked before
 * any copy is stored. A copy goes to every other member of its target.
 *
 * @module
 */
import { z } from 'zod';
import {
  FORWARD_TARGET_MAX,
  ForwardRequestSchema,
  ReactionRequestSchema,
} from 'agent-messaging-sdk/protocol';
import { ARTIFACT_ROUTES } from 'agent-messaging-sdk/protocol';
import { WEBHOOK_BODY_VERSION } from 'agent-messaging-sdk/protocol';
import type { ServerContext } from '../context.js';
import { uuidV7 } from '../delivery/ids.js';
import { fail } from '../http/failure.js';
import { defineRoute, type Route } from '../http/router.js';
import { ok } from '../http/respond.js';
import type { AnyPrincipal } from '../http/types.js';
import { parseBody } from '../http/validation.js';
import {
  callersConversation,
  envelopeMembersOf,
  membersOfConversation,
  publishMessage,
  requireOpen,
  type CallerConversation,
} from '../groups/caller-conversation.js';
import { checkEnvelope } from '../messages/envelope-check.js';
import type { MessageRecord } from '../store/agent-types.js';
import { artifactsOf } from './registry.js';

const idOf = (p: AnyPrincipal): string => (p.kind === 'user' ? p.userId : p.agentId);
const bodyLimit = (o: { maxMessageBodyBytes: number }): number => o.maxMessageBodyBytes;

async function findMessage(
  ctx: ServerContext,
  conversationId: string,
  messageId: string,
): Promise<MessageRecord> {
  for (let after = 0; ;) {
    const page = await ctx.store.messages.list(conversationId, after, 200);
    const hit = page.find((m) => m.messageId === messageId);
    if (hit !== undefined) return hit;
    const last = page[page.length - 1];
    if (last === undefined) throw fail('MESSAGE_NOT_FOUND', 'No such message in this conversation.');
    after = last.seq;
  }
}

/** Writes a cleartext-routed, sealed frame to every open WebSocket of a user (no inbox, no acks). */
export function frameToUser(
  ctx: ServerContext,
  userId: string,
  frame: Readonly<Record<string, unknown>>,
): boolean {
  const conns = ctx.hub.connections(
    (c) => c.state === 'open' && c.principal?.kind === 'user' && c.principal.userId === userId,
  );
  let sent = false;
  for (const conn of conns) sent = conn.send({ type: String(frame['type']), ...frame }) || sent;
  return sent;
}

const react = defineRoute({
  method: ARTIFACT_ROUTES.react.method,
  path: ARTIFACT_ROUTES.react.path,
  auth: 'user_or_agent',
  body: ReactionRequestSchema,
  maxBodyBytes: 65_536,
  async handler({ ctx, principal, params, body }) {
    const c = await callersConversation(ctx, principal, params['id']!);
    requireOpen(c);
    await findMessage(ctx, c.conversationId, body.message_id);
    const senderId = idOf(principal);
    const header = checkEnvelope(body.wire_envelope, {
      senderId,
      conversationId: c.conversationId,
      members: await envelopeMembersOf(ctx, c),
    });
    const frame = {
      type: 'reaction.update',
      version: WEBHOOK_BODY_VERSION,
      wire_envelope: body.wire_envelope,
      metadata: { conversation_id: c.conversationId, sender_id: senderId, created_at: header.createdAt },
      delivery_id: uuidV7(ctx.clock.now()),
    };
    const { userIds, agentIds } = membersOfConversation(c);
    let delivered = false;
    for (const id of agentIds) if (id !== senderId) delivered = ctx.agentSockets.send(id, frame) || delivered;
    for (const id of userIds) if (id !== senderId) delivered = frameToUser(ctx, id, frame) || delivered;
    return ok({ delivered }, 202);
  },
});

const forward = defineRoute({
  method: ARTIFACT_ROUTES.forward.method,
  path: ARTIFACT_ROUTES.forward.path,
  auth: 'user_or_agent',
  body: z.unknown(),
  maxBodyBytes: (o) => bodyLimit(o) * 2,
  async handler({ ctx, principal, body }) {
    const targets = (body as { targets?: unknown } | null)?.targets;
    if (Array.isArray(targets) && targets.length > FORWARD_TARGET_MAX) {
      throw fail('FORWARD_TARGET_LIMIT', `At most ${FORWARD_TARGET_MAX} forward targets.`, {
        max: FORWARD_TARGET_MAX,
        count: targets.length,
      });
    }
    const input = parseBody(ForwardRequestSchema, body);
    const source = await callersConversation(ctx, principal, input.source.conversation_id);
    await findMessage(ctx, source.conversationId, input.source.message_id);
    const artifact = artifactsOf(ctx).byMessage(input.source.message_id);
    if (artifact !== undefined && !artifact.forwardable) {
      throw fail('ARTIFACT_NOT_FORWARDABLE', 'This artifact may not be forwarded.', {
        artifact_id: artifact.artifactId,
      });
    }
    const senderId = idOf(principal);
    const checked: CallerConversation[] = [];
    for (const t of input.targets) {
      const c = await callersConversation(ctx, principal, t.conversation_id);
      requireOpen(c);
      checkEnvelope(t.wire_envelope, {
        senderId,
        conversationId: c.conversationId,
        members: await envelopeMembersOf(ctx, c),
      });
      checked.push(c);
    }
    const forwarded = [];
    for (const [i, c] of checked.entries()) {
      const { message } = await publishMessage(ctx, c, senderId, input.targets[i]!.wire_envelope);
      forwarded.push({ conversation_id: c.conversationId, message_id: message.messageId, seq: message.seq });
    }
    return ok({ forwarded }, 201);
  },
});

/** Reaction and forward routes. */
export const relayRoutes: readonly Route[] = [react, forward];
