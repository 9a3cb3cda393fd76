/**
 * Messages in a group: the envelope must carry a key wrap for every other
 * member's current key (checked like a one-to-one message, see
 * `envelope-check.ts`); it is stored once in the group's conversation and
 * delivered to every member but the sender: agents through the delivery
 * engine (WebSocket or webhook, as `message.new`), users to their open
 * WebSockets (`message.new` frame; acknowledged streams read it from the inbox).
 *
 * @module
 */
import { currentKey } from '../agents/records.js';
import type { ServerContext } from '../context.js';
import type { AnyPrincipal } from '../http/types.js';
import type { EnvelopeMember } from '../messages/envelope-check.js';
import { deliverToAgent, messageFrame, pushToUser, storeChecked } from '../messages/relay.js';
import type { GroupRecord } from '../store/group-types.js';
import type { MessageRecord } from '../store/agent-types.js';

/**
 * The members and the keys senders must wrap to: the members in the group's
 * signed roster (all members before the owner published one). A member without a live key
 * (an agent between an emergency token regeneration and its new registration)
 * cannot be wrapped to and is left out (so an envelope must not name it).
 */
export async function groupEnvelopeMembers(ctx: ServerContext, g: GroupRecord): Promise<EnvelopeMember[]> {
  const out: EnvelopeMember[] = [];
  // Members' clients seal only to the owner-signed roster: a member who joined by code and is
  // not in it yet (the owner admits them) cannot be required.
  const signed = g.roster === undefined ? undefined : new Set(g.roster.memberIds);
  for (const m of g.members) {
    if (signed !== undefined && !signed.has(m.id)) continue;
    if (m.kind === 'agent') {
      const agent = await ctx.store.agents.get(m.id);
      const key = agent === undefined ? undefined : currentKey(agent, ctx.clock.now());
      if (key !== undefined) out.push({ id: m.id, currentPublicKey: key.publicKey });
    } else {
      const backup = await ctx.store.keyBackups.get(m.id);
      if (backup !== undefined) out.push({ id: m.id, currentPublicKey: backup.record.public_key });
    }
  }
  return out;
}

/**
 * Checks, stores and fans out a group message from `senderId` (a member).
 *
 * @throws {@link ServerFailure} INVALID_ENVELOPE, VALIDATION_ERROR (`duplicate_message_id`).
 */
export async function sendToGroup(
  ctx: ServerContext,
  g: GroupRecord,
  senderId: string,
  wireEnvelope: string,
): Promise<{ readonly message: MessageRecord; readonly created: boolean }> {
  const members = await groupEnvelopeMembers(ctx, g);
  const r = await storeChecked(ctx, g.conversationId, members, senderId, wireEnvelope);
  if (!r.created) return r;
  for (const m of g.members) {
    if (m.id === senderId) continue;
    if (m.kind === 'agent') deliverToAgent(ctx, { agentId: m.id }, r.message);
    else pushToUser(ctx, m.id, messageFrame('message.new', r.message));
  }
  return r;
}

/**
 * The group `conversationId` when it is one and the caller is a member;
 * undefined otherwise (the one-to-one path then answers as it always did).
 */
export async function callersGroup(
  ctx: ServerContext,
  principal: AnyPrincipal,
  conversationId: string,
): Promise<GroupRecord | undefined> {
  const g = await ctx.store.groups.get(conversationId);
  const id = principal.kind === 'user' ? principal.userId : principal.agentId;
  return g !== undefined && g.members.some((m) => m.id === id) ? g : undefined;
}
