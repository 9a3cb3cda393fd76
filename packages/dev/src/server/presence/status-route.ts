/**
 * Status (#26, path from `PRESENCE_ROUTES`): an agent posts a sealed
 * `status.update` envelope; the server checks it like any envelope of the
 * conversation (sender, conversation, recipients) and relays it to the open
 * WebSockets of the conversation's users. Nothing is stored, nothing goes by
 * webhook, other agents of a group do not get it: a status is an ephemeral
 * hint for humans.
 *
 * | Route | Auth | Body | `data` |
 * |---|---|---|---|
 * | setStatus | agent | `{ wire_envelope }` (sealed `status.update`) | 202 `{ delivered }`: true when at least one user socket got it |
 *
 * Limit: 4 posts per 2 s per agent and conversation (`RATE_LIMIT_RULES.status`),
 * beyond that 429 `RATE_LIMITED` with `Retry-After` and `params.retry_after_ms`.
 *
 * @module
 */
import {
  PRESENCE_FRAMES,
  PRESENCE_ROUTES,
  StatusRequestSchema,
  WEBHOOK_BODY_VERSION,
} from 'agent-messaging-sdk/protocol';
import { frameToUser } from '../artifacts/relay-routes.js';
import { uuidV7 } from '../delivery/ids.js';
import {
  callersConversation,
  envelopeMembersOf,
  membersOfConversation,
  requireOpen,
} from '../groups/caller-conversation.js';
import { defineRoute, type Route } from '../http/router.js';
import { ok } from '../http/respond.js';
import { checkEnvelope } from '../messages/envelope-check.js';

const setStatus = defineRoute({
  method: PRESENCE_ROUTES.setStatus.method,
  path: PRESENCE_ROUTES.setStatus.path,
  auth: 'agent',
  body: StatusRequestSchema,
  maxBodyBytes: 65_536,
  async handler({ ctx, principal, params, body }) {
    const c = await callersConversation(ctx, principal, params['id']!);
    requireOpen(c);
    const senderId = principal.agentId;
    ctx.limits.enforce('status', `${senderId}\u0000${c.conversationId}`);
    const header = checkEnvelope(body.wire_envelope, {
      senderId,
      conversationId: c.conversationId,
      members: await envelopeMembersOf(ctx, c),
    });
    const frame = {
      type: PRESENCE_FRAMES.statusUpdate,
      version: WEBHOOK_BODY_VERSION,
      wire_envelope: body.wire_envelope,
      metadata: { conversation_id: c.conversationId, sender_id: senderId, created_at: header.createdAt },
      delivery_id: uuidV7(ctx.clock.now()),
    };
    let delivered = false;
    for (const id of membersOfConversation(c).userIds) delivered = frameToUser(ctx, id, frame) || delivered;
    return ok({ delivered }, 202);
  },
});

/** The status route. */
export const statusRoutes: readonly Route[] = [setStatus];
