/**
 * Webhook registration. The service does it "by talking to a system agent,
 * which shows a confirmation form"; the reference server offers the confirmed
 * result as owner endpoints (and the control API):
 *
 * | Method | Path | Auth | Body | `data` |
 * |---|---|---|---|---|
 * | PUT | /agents/:id/webhook | owner | `{ url }` | `{ agent_id, url, secret, delivery_mode: 'webhook', registered_at }` (secret shown once) |
 * | GET | /agents/:id/webhook | owner | | `{ agent_id, url, delivery_mode }` (never the secret) |
 * | DELETE | /agents/:id/webhook | owner | | `{ agent_id, url: null, delivery_mode: 'websocket' }` |
 *
 * The secret is base64 of 32 random bytes; the HMAC key is the UTF-8 bytes
 * of that string exactly as issued. A new address takes effect at once and
 * closes the agent's WebSocket (close 4013); while a webhook is registered
 * the agent's WebSocket `auth` is refused (`auth.error` `webhook_mode`).
 *
 * @module
 */
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { fromBase64, toBase64 } from 'agent-messaging-sdk/protocol';
import { LIMITS } from 'agent-messaging-sdk/protocol';
import type { ServerContext } from '../context.js';
import { defineRoute, type Route } from '../http/router.js';
import { ok } from '../http/respond.js';
import type { WebhookRegistration } from '../delivery/types.js';
import { WS_CLOSE } from '../ws/frames.js';
import { ownedAgent } from './service.js';
import { CORE_ROUTES } from 'agent-messaging-sdk/protocol';

/** Longest accepted webhook address (our bound). */
export const WEBHOOK_URL_MAX_CHARS = 2048;

function isWebhookUrl(text: string): boolean {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return false;
  }
  return (
    (url.protocol === 'http:' || url.protocol === 'https:') &&
    url.username === '' &&
    url.password === '' &&
    url.hash === ''
  );
}

/** An absolute http(s) URL without credentials or fragment. */
export const WebhookUrlSchema = z
  .string()
  .max(WEBHOOK_URL_MAX_CHARS)
  .refine(isWebhookUrl, { message: 'Must be an absolute http(s) URL without credentials or fragment' });

/** A webhook secret: canonical base64 of at least 32 bytes. */
export const WebhookSecretSchema = z
  .string()
  .max(1024)
  .refine((s) => (fromBase64(s)?.length ?? 0) >= LIMITS.WEBHOOK_SECRET_MIN_BYTES, {
    message: `Must be base64 of at least ${LIMITS.WEBHOOK_SECRET_MIN_BYTES} bytes`,
  });

/** A fresh secret: base64 of 32 CSPRNG bytes. */
export function newWebhookSecret(): string {
  return toBase64(new Uint8Array(randomBytes(LIMITS.WEBHOOK_SECRET_MIN_BYTES)));
}

/**
 * Registers (or with `null` removes) the agent's webhook: takes effect at
 * once; a registration closes the agent's WebSocket (4013).
 */
export function setAgentWebhook(
  ctx: ServerContext,
  agentId: string,
  registration: WebhookRegistration | null,
): void {
  ctx.delivery.setWebhook(agentId, registration);
  if (registration !== null) ctx.agentSockets.close(agentId, WS_CLOSE.WEBHOOK_MODE, 'webhook_mode');
}

const register = defineRoute({
  method: CORE_ROUTES.setWebhook.method,
  path: CORE_ROUTES.setWebhook.path,
  auth: 'user',
  body: z.strictObject({ url: WebhookUrlSchema }),
  async handler({ ctx, principal, params, body }) {
    const agent = await ownedAgent(ctx, principal.userId, params['id']!);
    const secret = newWebhookSecret();
    setAgentWebhook(ctx, agent.agentId, { url: body.url, secret });
    return ok({
      agent_id: agent.agentId,
      url: body.url,
      secret,
      delivery_mode: 'webhook',
      registered_at: new Date(ctx.clock.now()).toISOString(),
    });
  },
});

const read = defineRoute({
  method: CORE_ROUTES.getWebhook.method,
  path: CORE_ROUTES.getWebhook.path,
  auth: 'user',
  async handler({ ctx, principal, params }) {
    const agent = await ownedAgent(ctx, principal.userId, params['id']!);
    const hook = ctx.delivery.getWebhook(agent.agentId);
    return ok({
      agent_id: agent.agentId,
      url: hook?.url ?? null,
      delivery_mode: hook === undefined ? 'websocket' : 'webhook',
    });
  },
});

const remove = defineRoute({
  method: CORE_ROUTES.removeWebhook.method,
  path: CORE_ROUTES.removeWebhook.path,
  auth: 'user',
  async handler({ ctx, principal, params }) {
    const agent = await ownedAgent(ctx, principal.userId, params['id']!);
    setAgentWebhook(ctx, agent.agentId, null);
    return ok({ agent_id: agent.agentId, url: null, delivery_mode: 'websocket' });
  },
});

/** Webhook registration routes. */
export const webhookRoutes: readonly Route[] = [register, read, remove];
