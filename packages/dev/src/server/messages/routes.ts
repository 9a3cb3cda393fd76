/**
 * Sending and reading messages. The server relays ciphertext only: every
 * send carries the sealed envelope whose plaintext is the payload object
 * (`{ type: 'text', text }` and others).
 *
 * | Method | Path | Auth | Body / query | `data` |
 * |---|---|---|---|---|
 * | POST | /agents/:id/messages | agent | `{ conversation_id, wire_envelope }` | 201 new / 200 repeat: message view without `wire_envelope` |
 * | POST | /conversations/:id/messages | the user | `{ wire_envelope }` | 201 / 200: message view without `wire_envelope` |
 * | GET | /conversations/:id/messages | member | `?after=<seq>&limit=` | messages with `seq > after`, oldest first |
 *
 * A group is a conversation too (`packages/dev/src/server/groups`): its members send and
 * read through the same routes, and a message goes to every other member.
 *
 * Agent sends: 5 per second per agent (429 MESSAGE_RATE_LIMITED, Retry-After,
 * `params.retry_after_ms`), counted for every authenticated request; a
 * restricted (L1) agent gets AGENT_RESTRICTED. A plaintext `payload` field
 * is refused (VALIDATION_ERROR `reason: plaintext_payload`).
 *
 * @module
 */
import { z } from 'zod';
import { IdentifierSchema } from 'agent-messaging-sdk/protocol';
import { requireUnrestricted } from '../agents/governance.js';
import { existingAgent } from '../agents/service.js';
import { memberConversation } from '../conversations/routes.js';
import { callersGroup, sendToGroup } from '../groups/relay.js';
import type { ServerContext } from '../context.js';
import { fail, invalidField } from '../http/failure.js';
import { defineRoute, type Route } from '../http/router.js';
import { ok } from '../http/respond.js';
import { parseBody } from '../http/validation.js';
import type { ResolvedServerOptions } from '../options.js';
import { governanceFailure } from '../agents/authenticate-agent.js';
import {
  acceptMessage,
  deliverToAgent,
  messageFrame,
  messageView,
  pushToUser,
  requireEstablished,
} from './relay.js';
import { CORE_ROUTES } from 'agent-messaging-sdk/protocol';

/** Bounds of `limit` on `GET /conversations/:id/messages`. */
export const INBOX_LIMIT = Object.freeze({ default: 50, min: 1, max: 200 });

const messageBodyLimit = (o: ResolvedServerOptions): number => o.maxMessageBodyBytes;
const WireEnvelopeSchema = z.string().min(1);

function rejectPlaintext(body: unknown): void {
  if (typeof body === 'object' && body !== null && Object.hasOwn(body, 'payload')) {
    throw invalidField(
      'payload',
      'plaintext_payload',
      {},
      'The server relays ciphertext only: seal the payload with the SDK and send it as wire_envelope.',
    );
  }
}

const AgentSendSchema = z.strictObject({
  conversation_id: IdentifierSchema,
  wire_envelope: WireEnvelopeSchema,
});
const UserSendSchema = z.strictObject({ wire_envelope: WireEnvelopeSchema });

function sent(m: ReturnType<typeof messageView>, created: boolean) {
  const { wire_envelope: _omit, ...rest } = m;
  return ok(rest, created ? 201 : 200);
}

const agentSend = defineRoute({
  method: 'POST',
  path: '/agents/:id/messages',
  auth: 'agent',
  body: z.unknown(),
  maxBodyBytes: messageBodyLimit,
  async guard({ ctx, principal }) {
    requireUnrestricted(await existingAgent(ctx, principal.agentId));
    ctx.limits.enforce('messages', principal.agentId);
  },
  async handler({ ctx, principal, body }) {
    rejectPlaintext(body);
    const input = parseBody(AgentSendSchema, body);
    const group = await callersGroup(ctx, principal, input.conversation_id);
    if (group !== undefined) {
      const r = await sendToGroup(ctx, group, principal.agentId, input.wire_envelope);
      return sent(messageView(r.message), r.created);
    }
    const c = await memberConversation(ctx, principal, input.conversation_id);
    requireEstablished(c);
    const { message, created } = await acceptMessage(ctx, c, principal.agentId, input.wire_envelope);
    if (created) pushToUser(ctx, c.userId, messageFrame('message.new', message));
    return sent(messageView(message), created);
  },
});

async function requireAgentReachable(ctx: ServerContext, agentId: string): Promise<void> {
  const governed = governanceFailure(await existingAgent(ctx, agentId));
  if (governed !== undefined) {
    throw fail('FORBIDDEN', 'The agent is suspended or banned.', { reason: governed.code.toLowerCase() });
  }
}

const userSend = defineRoute({
  method: CORE_ROUTES.userSendMessage.method,
  path: CORE_ROUTES.userSendMessage.path,
  auth: 'user',
  body: z.unknown(),
  maxBodyBytes: messageBodyLimit,
  async handler({ ctx, principal, params, body }) {
    rejectPlaintext(body);
    const input = parseBody(UserSendSchema, body);
    const group = await callersGroup(ctx, principal, params['id']!);
    if (group !== undefined) {
      const r = await sendToGroup(ctx, group, principal.userId, input.wire_envelope);
      return sent(messageView(r.message), r.created);
    }
    const c = await memberConversation(ctx, principal, params['id']!);
    requireEstablished(c);
    await requireAgentReachable(ctx, c.agentId);
    const { message, created } = await acceptMessage(ctx, c, principal.userId, input.wire_envelope);
    if (created) deliverToAgent(ctx, c, message);
    return sent(messageView(message), created);
  },
});

function intQuery(query: URLSearchParams, name: string, min: number, max: number, fallback: number): number {
  const values = query.getAll(name);
  if (values.length === 0) return fallback;
  const text = values[0]!;
  if (values.length > 1 || !/^\d{1,15}$/.test(text)) throw invalidField(name, 'invalid_format', { min, max });
  const n = Number(text);
  if (n < min) throw invalidField(name, 'too_small', { min, max });
  if (n > max) throw invalidField(name, 'too_big', { min, max });
  return n;
}

const inbox = defineRoute({
  method: CORE_ROUTES.readMessages.method,
  path: CORE_ROUTES.readMessages.path,
  auth: 'user_or_agent',
  async handler({ ctx, principal, params, req }) {
    const c =
      (await callersGroup(ctx, principal, params['id']!)) ??
      (await memberConversation(ctx, principal, params['id']!));
    const after = intQuery(req.query, 'after', 0, Number.MAX_SAFE_INTEGER, 0);
    const limit = intQuery(req.query, 'limit', INBOX_LIMIT.min, INBOX_LIMIT.max, INBOX_LIMIT.default);
    const messages = await ctx.store.messages.list(c.conversationId, after, limit);
    return ok(messages.map(messageView));
  },
});

/** Message routes. */
export const messageRoutes: readonly Route[] = [agentSend, userSend, inbox];
