/**
 * The part-2 operations of the control API (dev/test only): agents,
 * governance, relations, webhooks, system events and acting as a user.
 * `ControlApi` exposes them in-process; `agent-routes.ts` over HTTP.
 *
 * @module
 */
import { ConfigurationError } from 'agent-messaging-sdk/protocol';
import { setGovernance } from '../agents/governance.js';
import { agentView } from '../agents/records.js';
import { createAgent } from '../agents/service.js';
import { sendSystemEvent, type SystemEventOutcome } from '../agents/system-events.js';
import { newWebhookSecret, setAgentWebhook } from '../agents/webhook.js';
import { signIn } from '../auth/sessions.js';
import type { ServerContext } from '../context.js';
import { changeRelation, conversationView } from '../conversations/service.js';
import { isServerFailure } from '../http/failure.js';
import type { GovernanceLevel } from '../store/agent-types.js';

/** Input of {@link ControlApi.createAgent}. */
export interface ControlAgentOptions {
  /** The owner's user id. */
  readonly ownerId: string;
  /** @defaultValue `'Agent'` */
  readonly name?: string;
}

/** A created agent and its token (shown once). */
export interface ControlAgent {
  readonly agentId: string;
  readonly token: string;
}

/** An access token issued for a user through the control API. */
export interface ControlAccessToken {
  readonly userId: string;
  readonly deviceId: string;
  readonly accessToken: string;
  readonly refreshToken: string;
}

/** A webhook registration made through the control API. */
export interface ControlWebhook {
  readonly url: string;
  /** The HMAC secret exactly as issued (base64 of ≥ 32 bytes). */
  readonly secret: string;
}

/** Runs `fn`, turning a refused request into a {@link ConfigurationError} naming `option`. */
async function asConfig<T>(option: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (isServerFailure(err))
      throw new ConfigurationError({ option, message: `${err.code}: ${err.message}` });
    throw err;
  }
}

/** Creates an agent for a user (no access token needed). */
export function controlCreateAgent(ctx: ServerContext, options: ControlAgentOptions): Promise<ControlAgent> {
  return asConfig('ownerId', async () => {
    if ((await ctx.store.users.byId(options.ownerId)) === undefined) {
      throw new ConfigurationError({ option: 'ownerId', message: 'No such user.' });
    }
    const { agent, token } = await createAgent(ctx, options.ownerId, options.name ?? 'Agent');
    return { agentId: agent.agentId, token };
  });
}

/** The owner's view of an agent, or undefined. */
export async function controlAgent(ctx: ServerContext, agentId: string) {
  const agent = await ctx.store.agents.get(agentId);
  return agent === undefined ? undefined : agentView(ctx, agent);
}

/** Sets governance. */
export function controlGovernance(
  ctx: ServerContext,
  agentId: string,
  level: GovernanceLevel,
  reason: string | null,
): Promise<void> {
  return asConfig('agentId', async () => void (await setGovernance(ctx, agentId, level, reason)));
}

/** Suspends or restores a relation. */
export function controlRelation(ctx: ServerContext, conversationId: string, change: 'suspend' | 'restore') {
  return asConfig('conversationId', async () =>
    conversationView(await changeRelation(ctx, conversationId, change)),
  );
}

/** Registers a webhook (a fresh secret unless one is given) or, with `null`, removes it. */
export async function controlWebhook(
  ctx: ServerContext,
  agentId: string,
  hook: { readonly url: string; readonly secret?: string } | null,
): Promise<ControlWebhook | undefined> {
  if (!ctx.agentIds.has(agentId))
    throw new ConfigurationError({ option: 'agentId', message: 'No such agent.' });
  if (hook === null) {
    setAgentWebhook(ctx, agentId, null);
    return undefined;
  }
  const registration = { url: hook.url, secret: hook.secret ?? newWebhookSecret() };
  setAgentWebhook(ctx, agentId, registration);
  return registration;
}

/** Seals and sends a system event to an agent. */
export function controlSystemEvent(
  ctx: ServerContext,
  agentId: string,
  type: string,
  payload: Readonly<Record<string, unknown>>,
  conversationId?: string,
): Promise<SystemEventOutcome> {
  return sendSystemEvent(ctx, agentId, type, payload, conversationId);
}

/** Signs a user in on a device without a password and returns the tokens. */
export async function controlAccessToken(
  ctx: ServerContext,
  userId: string,
  device: { readonly deviceId?: string; readonly deviceName?: string } = {},
): Promise<ControlAccessToken> {
  return asConfig('userId', async () => {
    if ((await ctx.store.users.byId(userId)) === undefined) {
      throw new ConfigurationError({ option: 'userId', message: 'No such user.' });
    }
    const res = await signIn(ctx, userId, device);
    const data = (res.body as { data: { device_id: string; access_token: string } }).data;
    const cookie = String(res.headers['set-cookie'] ?? '');
    const refreshToken = /^refresh_token=([^;]*)/.exec(cookie)?.[1] ?? '';
    return { userId, deviceId: data.device_id, accessToken: data.access_token, refreshToken };
  });
}
