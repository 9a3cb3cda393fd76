/**
 * Status colours and the online indicator (issue #28): each listed agent
 * carries a dot (`data-online`: `true` when a bot is connected or its webhook
 * is ready, `false` otherwise, absent while unknown); the service view's
 * fields and the delivery log's outcomes carry a tone (`data-tone`: `ok`,
 * `warn`, `bad`) that the style sheet colours.
 *
 * @module
 */

/** The part of `GET /_control/agents/:id/service` the marks read. */
export type ServiceStatus = Readonly<Record<string, string | number | boolean>>;

/** Whether the agent can take events now: a bot connected, or a webhook that is ready. */
export function isOnline(status: ServiceStatus): boolean {
  if (Number(status['websocket_connections']) > 0) return true;
  return status['delivery_mode'] === 'webhook' && status['connection_status'] === 'ready';
}

/** The tone of a status field's value, or undefined for a neutral one. */
export function toneOf(field: string, value: string | number | boolean): 'ok' | 'warn' | 'bad' | undefined {
  switch (field) {
    case 'connection_status':
      return value === 'ready' ? 'ok' : value === 'unreachable' ? 'bad' : 'warn';
    case 'websocket_connections':
      return Number(value) > 0 ? 'ok' : 'warn';
    case 'pending_count':
    case 'injected_failures_left':
    case 'rate_limit_hits':
      return Number(value) > 0 ? 'warn' : undefined;
    case 'token_active':
      return value === true ? 'ok' : 'bad';
    case 'governance_level':
      return value === 'none' ? undefined : value === 'L1' ? 'warn' : 'bad';
    default:
      return undefined;
  }
}

/** The tone of a delivery's final status or pending state. */
export function deliveryTone(status: string): 'ok' | 'warn' | 'bad' {
  if (status === 'delivered' || status === 'acked') return 'ok';
  if (status === 'failed' || status === 'expired' || status === 'dropped') return 'bad';
  return 'warn';
}

/** Sets the dot of the listed agent `agentId` (`#agents button[data-agent-id]`). */
export function markAgent(agentId: string, status: ServiceStatus): void {
  const button = document.querySelector<HTMLElement>(
    `#agents button[data-agent-id="${CSS.escape(agentId)}"]`,
  );
  if (button === null) return;
  const online = isOnline(status);
  button.dataset['online'] = String(online);
  button.title = online ? 'online: a bot is connected' : 'offline: no bot connected';
}

/** Colours the service view's fields (`#status dd[data-field]`). */
export function toneStatus(dl: HTMLElement): void {
  for (const dd of Array.from(dl.querySelectorAll<HTMLElement>('dd[data-field]'))) {
    const raw = dd.textContent ?? '';
    const value = raw === 'true' ? true : raw === 'false' ? false : raw;
    const tone = toneOf(dd.dataset['field'] ?? '', value);
    if (tone === undefined) delete dd.dataset['tone'];
    else dd.dataset['tone'] = tone;
  }
}
