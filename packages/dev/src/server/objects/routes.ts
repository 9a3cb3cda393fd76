/**
 * `GET /r2/<object_key>`: the ciphertext of an oversize delivery (for the
 * agent it was stored for only) or of an uploaded file (for any member of
 * its conversation, agent or user), at most 5 requests per second per
 * caller (429 RATE_LIMITED with Retry-After and `params.retry_after_ms`).
 *
 * An unknown, expired or other caller's key is the same 404 NOT_FOUND, so a
 * key's existence is never revealed to another caller.
 *
 * @module
 */
import { fileObjectsOf } from '../files/file-objects.js';
import { isConversationMember, principalId } from '../files/routes.js';
import { fail } from '../http/failure.js';
import { defineRoute, type Route } from '../http/router.js';

const OBJECT_HEADERS = {
  'content-type': 'application/octet-stream',
  'cache-control': 'private, no-store',
  'x-content-type-options': 'nosniff',
} as const;

/** The object routes. */
export const objectRoutes: readonly Route[] = [
  defineRoute({
    method: 'GET',
    path: '/r2/:object_key',
    auth: 'user_or_agent',
    // Counted before the lookup: every authenticated fetch uses the caller's budget.
    guard: ({ ctx, principal }) => ctx.limits.enforce('objects', principalId(principal)),
    handler: async ({ ctx, params, principal }) => {
      const key = params['object_key'] ?? '';
      const files = fileObjectsOf(ctx);
      const file = files.get(key);
      if (file !== undefined) {
        if (!(await isConversationMember(ctx, principal, file.conversationId))) {
          throw fail('NOT_FOUND', 'No such object.');
        }
        return {
          status: 200,
          headers: { ...OBJECT_HEADERS, 'content-length': String(file.size) },
          stream: files.read(file),
        };
      }
      const object = principal.kind === 'agent' ? ctx.delivery.getObject(key) : undefined;
      if (object === undefined || principal.kind !== 'agent' || object.agentId !== principal.agentId) {
        throw fail('NOT_FOUND', 'No such object.');
      }
      return {
        status: 200,
        headers: { ...OBJECT_HEADERS, 'content-type': object.contentType },
        body: object.bytes,
      };
    },
  }),
];
