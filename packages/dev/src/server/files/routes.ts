/**
 * The file routes (names in `FILE_ROUTES`): a conversation member uploads the
 * ciphertext of a file; any member fetches it with `GET /r2/<object_key>`
 * (see `objects/routes.ts`). The server never sees a file key.
 *
 * Order of checks: authentication → 5 uploads per second per uploader
 * (FILE_UPLOAD_RATE_LIMITED) → membership (NOT_CONVERSATION_MEMBER_UPLOAD) →
 * Content-Length (FILE_TOO_LARGE) → the body as it streams (FILE_TOO_LARGE,
 * SHA256_MISMATCH).
 *
 * @module
 */
import { FILE_ROUTES } from 'agent-messaging-sdk/protocol';
import { groupOf } from '../groups/members.js';
import type { ServerContext } from '../context.js';
import { fail, invalidRequest } from '../http/failure.js';
import { ok } from '../http/respond.js';
import { defineRoute, type Route } from '../http/router.js';
import type { AnyPrincipal } from '../http/types.js';
import { checkDeclaredLength, receiveUpload } from './upload.js';

/** The user or agent id of a principal. */
export function principalId(principal: AnyPrincipal): string {
  return principal.kind === 'user' ? principal.userId : principal.agentId;
}

/** True when `principal` is a member of the established conversation `id`. */
export async function isConversationMember(
  ctx: ServerContext,
  principal: AnyPrincipal,
  conversationId: string,
): Promise<boolean> {
  const group = await groupOf(ctx, conversationId);
  if (group !== undefined) return group.members.some((m) => m.id === principalId(principal));
  const c = await ctx.store.conversations.get(conversationId);
  if (c === undefined || c.state !== 'established') return false;
  return principal.kind === 'user' ? c.userId === principal.userId : c.agentId === principal.agentId;
}

const upload = defineRoute({
  method: FILE_ROUTES.uploadFile.method,
  path: FILE_ROUTES.uploadFile.path,
  auth: 'user_or_agent',
  streamBody: true,
  guard: ({ ctx, principal }) => ctx.limits.enforce('files', principalId(principal)),
  async handler({ ctx, req, params, principal }) {
    const conversationId = params['id'] ?? '';
    if (!(await isConversationMember(ctx, principal, conversationId))) {
      throw fail('NOT_CONVERSATION_MEMBER_UPLOAD', 'Only a member of the conversation can upload into it.');
    }
    checkDeclaredLength(ctx, req.headers['content-length']);
    if (req.stream === undefined) throw invalidRequest('body_required', 'This endpoint needs a body.');
    const object = await receiveUpload(ctx, req.stream, {
      conversationId,
      uploaderId: principalId(principal),
    });
    return ok(
      {
        object_key: object.objectKey,
        conversation_id: object.conversationId,
        size: object.size,
        sha256: object.sha256,
        content_type: 'application/octet-stream',
      },
      201,
    );
  },
});

/** The file routes. */
export const fileRoutes: readonly Route[] = [upload];
