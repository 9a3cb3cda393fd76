/**
 * Every path and frame name the service interface leaves "not shown", in one
 * table: the reference server mounts its routes from it and the SDK builds
 * its requests and frames from it, so a real service's names replace ours
 * here and nowhere else.
 *
 * The names the interface does give (`/auth/*`, `POST /keys/backup`,
 * `/agents/:id/messages`, `/r2/<key>`, `auth`, `auth.ok` …) are not in this
 * table: they are fixed by the interface, not by us.
 *
 * One section per feature area; each is a plain object of
 * {@link ServiceRoute}s or frame names, merged into {@link SERVICE_ROUTES}
 * and {@link SERVICE_FRAMES}. docs/protocol-names.md is generated from this
 * module (`npm run docs:names`, a test checks it is current).
 *
 * @module
 */
import { validationError } from './parse.js';

/** An HTTP method of a service route. */
export type ServiceMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** One route: its method and its path template (`:name` marks a path parameter). */
export interface ServiceRoute {
  /** The HTTP method. */
  readonly method: ServiceMethod;
  /** The path relative to the base URL, with `:name` parameters. */
  readonly path: string;
  /** Who calls it: `agent` (agent token), `user` (access token) or `member` (either). */
  readonly auth: 'agent' | 'user' | 'member' | 'none';
  /** One line: what it does. */
  readonly summary: string;
}

type RouteTable = Record<string, ServiceRoute>;
type FrameTable = Record<string, string>;

// ---------------------------------------------------------------------------
// Core: conversations, key lookup, webhook registration, agent keys, agents,
// reading the key backup, passkey management, the WebSocket address (gap
// decisions of part 1 and 2).
// ---------------------------------------------------------------------------

/** Routes of the core gaps that earlier parts filled. */
export const CORE_ROUTES = {
  createConversation: {
    method: 'POST',
    path: '/conversations',
    auth: 'user',
    summary: 'Start (or return) the conversation of the user with an agent.',
  },
  listConversations: {
    method: 'GET',
    path: '/conversations',
    auth: 'user',
    summary: "The user's conversations.",
  },
  getConversation: {
    method: 'GET',
    path: '/conversations/:id',
    auth: 'member',
    summary: 'One conversation with its members and their public keys.',
  },
  revokeConversation: {
    method: 'DELETE',
    path: '/conversations/:id',
    auth: 'user',
    summary: 'Revoke the relation (idempotent).',
  },
  agentConversations: {
    method: 'GET',
    path: '/agents/:id/conversations',
    auth: 'agent',
    summary: "The agent's conversations.",
  },
  userSendMessage: {
    method: 'POST',
    path: '/conversations/:id/messages',
    auth: 'user',
    summary: 'A user sends a sealed message.',
  },
  readMessages: {
    method: 'GET',
    path: '/conversations/:id/messages',
    auth: 'member',
    summary: "Read the conversation's messages (sealed), after a sequence number.",
  },
  lookupKeys: {
    method: 'GET',
    path: '/keys/:principal_id',
    auth: 'member',
    summary: "Public keys of the caller, `system`, a conversation's other side or the caller's own agent.",
  },
  systemKeys: {
    method: 'GET',
    path: '/system/keys',
    auth: 'none',
    summary: "The system sender's public keys.",
  },
  keyChallenge: {
    method: 'GET',
    path: '/agents/:id/keys/challenge',
    auth: 'agent',
    summary: 'A one-time challenge for a key registration proof.',
  },
  registerAgentKeys: {
    method: 'PUT',
    path: '/agents/:id/keys',
    auth: 'agent',
    summary: "Register the agent's public keys with a proof of possession.",
  },
  checkAgentKeys: {
    method: 'POST',
    path: '/agents/:id/keys/check',
    auth: 'agent',
    summary: 'Compare local keys with the registered ones.',
  },
  getWebhook: { method: 'GET', path: '/agents/:id/webhook', auth: 'user', summary: 'The webhook address.' },
  setWebhook: {
    method: 'PUT',
    path: '/agents/:id/webhook',
    auth: 'user',
    summary: 'Register or change the webhook address; answers a new secret.',
  },
  removeWebhook: {
    method: 'DELETE',
    path: '/agents/:id/webhook',
    auth: 'user',
    summary: 'Back to WebSocket mode.',
  },
  createAgent: {
    method: 'POST',
    path: '/agents',
    auth: 'user',
    summary: 'Create an agent (token shown once).',
  },
  listAgents: { method: 'GET', path: '/agents', auth: 'user', summary: "The user's agents." },
  getAgent: { method: 'GET', path: '/agents/:id', auth: 'member', summary: 'One agent record.' },
  getKeyBackup: {
    method: 'GET',
    path: '/keys/backup',
    auth: 'user',
    summary: "The user's key backup (uploading it, `POST /keys/backup`, is in the interface).",
  },
  beginPasskeyRegistration: {
    method: 'POST',
    path: '/users/me/passkeys/begin',
    auth: 'user',
    summary: 'WebAuthn creation options for a new passkey of the signed-in user.',
  },
  completePasskeyRegistration: {
    method: 'POST',
    path: '/users/me/passkeys/complete',
    auth: 'user',
    summary: 'Verify the attestation and store the passkey.',
  },
  listPasskeys: { method: 'GET', path: '/users/me/passkeys', auth: 'user', summary: "The user's passkeys." },
  removePasskey: {
    method: 'DELETE',
    path: '/users/me/passkeys/:credential_id',
    auth: 'user',
    summary: 'Remove one passkey.',
  },
  webSocket: {
    method: 'GET',
    path: '/ws',
    auth: 'none',
    summary: 'The WebSocket address (agents and users; `auth` frame first).',
  },
} as const satisfies RouteTable;

// ---------------------------------------------------------------------------
// Part 1 (#13): streamed replies.
// ---------------------------------------------------------------------------

/** Routes of streamed replies. */
export const STREAM_ROUTES = {
  streamStart: {
    method: 'POST',
    path: '/conversations/:id/streams',
    auth: 'agent',
    summary: 'Webhook-mode agent: start a stream (sealed stream key envelope).',
  },
  streamDeltas: {
    method: 'POST',
    path: '/streams/:stream_id/deltas',
    auth: 'agent',
    summary: 'Webhook-mode agent: append a batch of sealed deltas.',
  },
  streamEnd: {
    method: 'POST',
    path: '/streams/:stream_id/end',
    auth: 'agent',
    summary: 'Webhook-mode agent: end a stream (final seq, transcript hash, signature).',
  },
  streamAbort: {
    method: 'POST',
    path: '/streams/:stream_id/abort',
    auth: 'agent',
    summary: 'Webhook-mode agent: abort a stream (sealed reason).',
  },
} as const satisfies RouteTable;
/** Frames of streamed replies. */
export const STREAM_FRAMES = {
  /** Agent → service → user: opens a stream (stream id, sealed stream key envelope). */
  start: 'stream.start',
  /** Agent → service → user: one sealed delta (seq, ciphertext). */
  delta: 'stream.delta',
  /** Agent → service → user: the end (final seq, transcript hash, signature). */
  end: 'stream.end',
  /** Agent → service → user: the sender gave up (sealed reason). */
  abort: 'stream.abort',
  /** Service → agent: the stream was accepted and relays. */
  accepted: 'stream.accepted',
  /** Service → agent: the end was relayed; the stream is closed. */
  closed: 'stream.closed',
  /** Service → agent and user: the service ended the stream (`reason`: a stream error value). */
  error: 'stream.error',
} as const satisfies FrameTable;

// ---------------------------------------------------------------------------
// Part 1 (#13): artifacts, forwarding, reactions.
// ---------------------------------------------------------------------------

/** Routes of artifacts, forwarding and reactions. */
export const ARTIFACT_ROUTES = {
  createArtifact: {
    method: 'POST',
    path: '/agents/:id/artifacts',
    auth: 'agent',
    summary: 'An agent sends an artifact (sealed content plus routing metadata), revision 1.',
  },
  getArtifact: {
    method: 'GET',
    path: '/agents/:id/artifacts/:artifact_id',
    auth: 'agent',
    summary: "The artifact's routing metadata: current revision, state, outcome.",
  },
  updateArtifact: {
    method: 'PUT',
    path: '/agents/:id/artifacts/:artifact_id',
    auth: 'agent',
    summary: 'A new revision, based_on_revision the current one (409 ARTIFACT_REVISION_CONFLICT otherwise).',
  },
  answerArtifact: {
    method: 'POST',
    path: '/conversations/:id/artifacts/:artifact_id/answer',
    auth: 'user',
    summary: "The human's sealed answer (approved with data, or denied with a reason).",
  },
  react: {
    method: 'POST',
    path: '/conversations/:id/reactions',
    auth: 'member',
    summary: 'A sealed reaction to a message, relayed as reaction.update (WebSocket only).',
  },
  forward: {
    method: 'POST',
    path: '/forwards',
    auth: 'member',
    summary: 'Forward a message or artifact: one sealed copy per target conversation (at most 10).',
  },
} as const satisfies RouteTable;
/** Frames of artifacts, forwarding and reactions. */
export const ARTIFACT_FRAMES = {} as const satisfies FrameTable;

// ---------------------------------------------------------------------------
// Part 2 (#14): encrypted files.
// ---------------------------------------------------------------------------

/**
 * Routes of encrypted files. The body of `upload` is the ciphertext followed
 * by its 32-byte SHA-256 (docs/files.md); the ciphertext is fetched with the
 * interface's own `GET /r2/<object_key>`.
 */
export const FILE_ROUTES = {
  uploadFile: {
    method: 'POST',
    path: '/conversations/:id/files',
    auth: 'member',
    summary: 'Upload the ciphertext of a file (streamed; ciphertext then its SHA-256) into a conversation.',
  },
} as const satisfies RouteTable;
/** Frames of encrypted files. */
export const FILE_FRAMES = {} as const satisfies FrameTable;

// ---------------------------------------------------------------------------
// Part 2 (#14): groups, invites, group keys.
// ---------------------------------------------------------------------------

/**
 * Routes of groups. A group is a conversation: its messages use the
 * conversation routes above (`userSendMessage`, the agent's
 * `/agents/:id/messages`, `readMessages`, `getConversation` lists its members
 * with their keys). Invite codes travel in bodies, never in paths.
 */
export const GROUP_ROUTES = {
  createGroup: {
    method: 'POST',
    path: '/groups',
    auth: 'user',
    summary: 'Create a group (a conversation) with the caller and agents it owns or has a relation with.',
  },
  listGroups: { method: 'GET', path: '/groups', auth: 'member', summary: "The caller's groups." },
  getGroup: {
    method: 'GET',
    path: '/groups/:id',
    auth: 'member',
    summary: 'One group with its members, their public keys and the key version.',
  },
  createInvite: {
    method: 'POST',
    path: '/groups/:id/invites',
    auth: 'member',
    summary: 'A one-time invite code for the group.',
  },
  joinGroup: {
    method: 'POST',
    path: '/groups/join',
    auth: 'member',
    summary: 'Join the group of an invite code (the code is used up).',
  },
  leaveGroup: { method: 'POST', path: '/groups/:id/leave', auth: 'member', summary: 'Leave a group.' },
  removeMember: {
    method: 'DELETE',
    path: '/groups/:id/members/:member_id',
    auth: 'user',
    summary: 'The group owner removes a member.',
  },
  rotateGroupKey: {
    method: 'POST',
    path: '/groups/:id/key/rotate',
    auth: 'member',
    summary: 'Start a new group key version (`based_on_version`; 6 per hour per conversation).',
  },
  putGroupRoster: {
    method: 'PUT',
    path: '/groups/:id/roster',
    auth: 'user',
    summary: 'The group owner publishes a new signed roster version (docs/groups.md, "Signed roster").',
  },
} as const satisfies RouteTable;
/**
 * Frames of groups: none. `group.updated` and `system.group_key_rotated`
 * are event types the service interface names; they travel as ordinary
 * sealed event frames.
 */
export const GROUP_FRAMES = {} as const satisfies FrameTable;

// ---------------------------------------------------------------------------
// Part 2 (#14): capability manifests and data grants.
// ---------------------------------------------------------------------------

/** Routes of capability manifests and data grants. */
export const MANIFEST_ROUTES = {
  getManifest: {
    method: 'GET',
    path: '/agents/:id/manifest',
    auth: 'member',
    summary: "The agent's accepted manifest, the pending change and the head version (agent or owner).",
  },
  updateManifest: {
    method: 'PUT',
    path: '/agents/:id/manifest',
    auth: 'agent',
    summary: 'Propose a manifest change `{ manifest, based_on_version }` (128 KB, 1 per minute).',
  },
  decideManifest: {
    method: 'POST',
    path: '/agents/:id/manifest/decision',
    auth: 'user',
    summary: 'The owner accepts or rejects the pending change `{ version, decision }`.',
  },
  requestGrant: {
    method: 'POST',
    path: '/agents/:id/grants',
    auth: 'agent',
    summary: 'Ask a user for a data grant `{ conversation_id, scope, window_seconds, reason }`.',
  },
  agentGrants: {
    method: 'GET',
    path: '/agents/:id/grants',
    auth: 'agent',
    summary: "The agent's grant requests and grants.",
  },
  agentGrant: {
    method: 'GET',
    path: '/agents/:id/grants/:grant_id',
    auth: 'agent',
    summary: 'One grant of the agent (status, window).',
  },
  readGrant: {
    method: 'GET',
    path: '/agents/:id/grants/:grant_id/data',
    auth: 'agent',
    summary: 'Read the data of a granted scope (GRANT_DENIED, GRANT_EXPIRED, GRANT_REVOKED).',
  },
  userGrants: {
    method: 'GET',
    path: '/grants',
    auth: 'user',
    summary: "The user's grant requests and grants (`?status=pending`).",
  },
  decideGrant: {
    method: 'POST',
    path: '/grants/:grant_id/decision',
    auth: 'user',
    summary: 'The user grants or denies a request `{ decision, window_seconds? }`.',
  },
  revokeGrant: {
    method: 'DELETE',
    path: '/grants/:grant_id',
    auth: 'user',
    summary: 'The user revokes a grant (the agent gets `grant.revoked`).',
  },
} as const satisfies RouteTable;
/**
 * Frames (event types) of capability manifests and data grants. The spec's own
 * `agent.capability_changed` and `grant.revoked` are not gaps and not listed.
 */
export const MANIFEST_FRAMES = {
  /** Event to the agent: the user granted or denied a grant request (sealed by `system`). */
  grantDecided: 'grant.decided',
} as const satisfies FrameTable;

// ---------------------------------------------------------------------------
// Part 2 (#14): device migration.
// ---------------------------------------------------------------------------

/** Routes of device migration. */
export const MIGRATION_ROUTES = {
  startMigration: {
    method: 'POST',
    path: '/migrations',
    auth: 'user',
    summary: 'The old device opens a migration session (10 min) with a commitment to its ephemeral key.',
  },
  joinMigration: {
    method: 'POST',
    path: '/migrations/join',
    auth: 'user',
    summary:
      "The new device joins by the session's code (no key yet: it learns the session id and the old device's commitment first).",
  },
  submitMigrationKey: {
    method: 'POST',
    path: '/migrations/:id/key',
    auth: 'user',
    summary:
      'The new device sends its ephemeral public key, after it holds the commitment (idempotent for the same key).',
  },
  getMigration: {
    method: 'GET',
    path: '/migrations/:id',
    auth: 'user',
    summary: 'Either device reads the session (polled; the bundle only for the new device).',
  },
  revealMigrationKey: {
    method: 'POST',
    path: '/migrations/:id/reveal',
    auth: 'user',
    summary:
      'The old device reveals the ephemeral public key it committed to, after the new key is in (idempotent for the same key).',
  },
  sendMigrationBundle: {
    method: 'POST',
    path: '/migrations/:id/bundle',
    auth: 'user',
    summary: 'The old device posts the bundle sealed to the session key and the account key.',
  },
  closeMigration: {
    method: 'DELETE',
    path: '/migrations/:id',
    auth: 'user',
    summary: 'Either device ends the session (idempotent within the session).',
  },
} as const satisfies RouteTable;
/** Frames of device migration (none: both devices poll the session). */
export const MIGRATION_FRAMES = {} as const satisfies FrameTable;

// ---------------------------------------------------------------------------
// #26 (presence): status.
// ---------------------------------------------------------------------------

/** Routes of status (issue #26). */
export const PRESENCE_ROUTES = {
  setStatus: {
    method: 'POST',
    path: '/conversations/:id/status',
    auth: 'agent',
    summary:
      "A sealed status (working, with text, or idle), relayed as status.update to the conversation's users' open WebSockets (never stored, never by webhook).",
  },
} as const satisfies RouteTable;
/** Frames of status (issue #26). */
export const PRESENCE_FRAMES = {
  /** Service → user: a sealed status of another member (the agent), relayed, never stored. */
  statusUpdate: 'status.update',
} as const satisfies FrameTable;

// ---------------------------------------------------------------------------
// The whole table.
// ---------------------------------------------------------------------------

/** Every gap route, by name. */
export const SERVICE_ROUTES = {
  ...CORE_ROUTES,
  ...STREAM_ROUTES,
  ...ARTIFACT_ROUTES,
  ...FILE_ROUTES,
  ...GROUP_ROUTES,
  ...MANIFEST_ROUTES,
  ...MIGRATION_ROUTES,
  ...PRESENCE_ROUTES,
} as const satisfies RouteTable;

/** The name of a gap route. */
export type ServiceRouteName = keyof typeof SERVICE_ROUTES;

// ---------------------------------------------------------------------------
// #25: copies of one agent sharing delivery over several live sockets.
// ---------------------------------------------------------------------------

/**
 * Frames of several live sockets per agent (`share` in `auth` / `auth.ok`,
 * docs/production.md). The `share` field of `auth` and `auth.ok` is next to
 * `ack` in ws-frames.ts.
 */
export const SCALE_FRAMES = {
  /** Agent → service: route no new work to this socket; it closes once its handlers finished. */
  drain: 'connection.drain',
} as const satisfies FrameTable;

/** Every gap frame name, by name. */
export const SERVICE_FRAMES = {
  ...SCALE_FRAMES,
  ...STREAM_FRAMES,
  ...ARTIFACT_FRAMES,
  ...FILE_FRAMES,
  ...GROUP_FRAMES,
  ...MANIFEST_FRAMES,
  ...MIGRATION_FRAMES,
  ...PRESENCE_FRAMES,
} as const satisfies FrameTable;

/**
 * The concrete path of `route` with each `:name` replaced by the
 * percent-encoded `params[name]`.
 *
 * @throws {@link index!ValidationError | ValidationError} when a parameter is missing, empty, or a
 * dot segment (`.`, `..`: the URL would resolve to another path).
 * @example
 * ```ts
 * routePath(SERVICE_ROUTES.getConversation, { id: conversationId }); // '/conversations/c%2F1'
 * ```
 */
export function routePath(route: ServiceRoute, params: Readonly<Record<string, string>> = {}): string {
  return route.path.replace(/:([a-z_]+)/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined || value === '' || value === '.' || value === '..') {
      throw validationError(`path parameter ${name}`, [
        { path: [name], message: `Missing path parameter ${name} of ${route.path} (or a dot segment)` },
      ]);
    }
    return encodeURIComponent(value);
  });
}
