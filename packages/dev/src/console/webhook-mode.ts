/**
 * The selected agent's delivery mode from the console: **Use webhook**
 * registers a webhook address as the owner (`PUT /agents/:id/webhook`) and
 * hands the new secret over as a downloaded env file (`AMS_WEBHOOK_SECRET`,
 * never shown in the page, like a token: see agent-admin.ts); **Use
 * WebSocket** removes it (`DELETE /agents/:id/webhook`).
 *
 * @module
 */
import { routePath, SERVICE_ROUTES } from 'agent-messaging-sdk/protocol';
import { downloadText } from './agent-admin.js';
import type { ConsoleCall } from './api.js';
import { envFileName, quoteEnvValue } from './env-file.js';

/** What the mode buttons need from the page. */
export interface WebhookModeDeps {
  call<T>(c: ConsoleCall, show?: boolean): Promise<T>;
  say(text: string): void;
  refresh(): Promise<void>;
  /** The listed name of an agent. */
  agentName(agentId: string): string | undefined;
}

/** The file the secret of `agentName`'s webhook is downloaded as. */
export function webhookEnvFileName(agentName: string): string {
  return envFileName(agentName).replace(/\.env$/, '-webhook.env');
}

/** The downloaded file: the one line a webhook receiver needs beside the agent's env file. */
export function webhookEnvFile(secret: string): string {
  return `AMS_WEBHOOK_SECRET=${quoteEnvValue(secret)}\n`;
}

/**
 * Registers `url` as the agent's webhook and downloads its secret.
 *
 * @throws Error when no agent is selected or the address is empty (before any request); the service's
 *   refusal (`VALIDATION_ERROR` for an address it does not take) otherwise.
 */
export async function useWebhook(
  d: WebhookModeDeps,
  agentId: string | undefined,
  url: string,
): Promise<void> {
  if (agentId === undefined) throw new Error('Pick an agent first.');
  const address = url.trim();
  if (address === '') throw new Error('Type the address of your webhook receiver first.');
  const r = await d.call<{ url: string; secret: string }>(
    {
      method: 'PUT',
      path: routePath(SERVICE_ROUTES.setWebhook, { id: agentId }),
      auth: true,
      body: { url: address },
    },
    true,
  );
  const fileName = webhookEnvFileName(d.agentName(agentId) ?? agentId);
  downloadText(fileName, webhookEnvFile(r.secret));
  d.say(`webhook mode: deliveries go to ${r.url}; its secret was downloaded as ${fileName}`);
  await d.refresh();
}

/** Removes the agent's webhook: deliveries go to its WebSocket again. */
export async function useWebSocket(d: WebhookModeDeps, agentId: string | undefined): Promise<void> {
  if (agentId === undefined) throw new Error('Pick an agent first.');
  await d.call(
    { method: 'DELETE', path: routePath(SERVICE_ROUTES.removeWebhook, { id: agentId }), auth: true },
    true,
  );
  d.say('WebSocket mode: the webhook is removed');
  await d.refresh();
}
