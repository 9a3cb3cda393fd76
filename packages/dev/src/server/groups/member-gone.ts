/**
 * What ends when a member leaves a group (or is removed), so a former member
 * neither keeps speaking nor keeps hearing in it:
 *
 * | Feature | Effect |
 * |---|---|
 * | streams | the member agent's open streams end with `peer_revoked`; a human's devices get no further stream frame |
 * | artifacts | the member agent's open artifacts are denied `permission_revoked` |
 *
 * @module
 */
import { denyOpenArtifactsOfMember } from '../artifacts/service.js';
import type { ServerContext } from '../context.js';
import { existingStreamRelay } from '../streams/relay.js';

/** Ends the open streams and artifacts of `memberId` in the group `conversationId`. */
export async function memberGone(
  ctx: ServerContext,
  conversationId: string,
  memberId: string,
): Promise<void> {
  existingStreamRelay(ctx)?.memberLeft(conversationId, memberId);
  await denyOpenArtifactsOfMember(ctx, conversationId, memberId);
}
