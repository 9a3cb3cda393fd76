/**
 * The request and delivery log of `ams serve --dev`: one line per record of
 * the reference server's activity feed. Only what the record holds (method,
 * path without query, status, ids, attempt, error class) is printed: never
 * tokens, passwords or bodies.
 *
 * @module
 */
import type { ServerActivity } from '../testing/index.js';

/**
 * One log line (no newline).
 *
 * @example
 * ```ts
 * activityLine({ kind: 'request', method: 'GET', path: '/agents/a1', status: 200, agentId: 'a1', durationMs: 3 });
 * // 'ams serve: GET /agents/a1 200 agent=a1 3ms'
 * activityLine({ kind: 'delivery', event: 'delivery.delivered', agentId: 'a1', deliveryId: 'd1', attempt: 1 });
 * // 'ams serve: delivery.delivered agent=a1 delivery=d1 attempt=1'
 * ```
 */
export function activityLine(a: ServerActivity): string {
  if (a.kind === 'request') {
    const agent = a.agentId === undefined ? '' : ` agent=${a.agentId}`;
    return `ams serve: ${a.method} ${a.path} ${a.status}${agent} ${a.durationMs}ms`;
  }
  const parts = [
    a.agentId === undefined ? '' : ` agent=${a.agentId}`,
    a.deliveryId === undefined ? '' : ` delivery=${a.deliveryId}`,
    a.attempt === undefined ? '' : ` attempt=${a.attempt}`,
    a.reason === undefined ? '' : ` reason=${a.reason}`,
  ];
  return `ams serve: ${a.event}${parts.join('')}`;
}
