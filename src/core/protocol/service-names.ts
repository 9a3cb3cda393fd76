/**
 * Every path and frame name the service interface leaves "not shown", in one
 * table: the reference server mounts its routes from it and the SDK builds
 * its requests and frames from it, so a real service's names replace ours
 * here and nowhere else.
 *
 * The names the interface does give (`/auth/*`, `/keys/backup`,
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
// Core: conversations, key lookup, webhook registration, agent keys, the
// WebSocket address (gap decisions of part 1 and 2).
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
    auth: 'user',
    summary: "Read the conversation's inbox (sealed).",
  },
  lookupKeys: {
    method: 'GET',
    path: '/keys/:principal_id',
    auth: 'member',
    summary: 'Public keys of a principal that shares a conversation with the caller.',
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
    summary: 'Register or change the webhook address and secret.',
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
export const STREAM_ROUTES = {} as const satisfies RouteTable;
/** Frames of streamed replies. */
export const STREAM_FRAMES = {} as const satisfies FrameTable;

// ---------------------------------------------------------------------------
// Part 1 (#13): artifacts, forwarding, reactions.
// ---------------------------------------------------------------------------

/** Routes of artifacts, forwarding and reactions. */
export const ARTIFACT_ROUTES = {} as const satisfies RouteTable;
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

/** Routes of groups. */
export const GROUP_ROUTES = {} as const satisfies RouteTable;
/** Frames of groups. */
export const GROUP_FRAMES = {} as const satisfies FrameTable;

// ---------------------------------------------------------------------------
// Part 2 (#14): capability manifests and data grants.
// ---------------------------------------------------------------------------

/** Routes of capability manifests and data grants. */
export const MANIFEST_ROUTES = {} as const satisfies RouteTable;
/** Frames of capability manifests and data grants. */
export const MANIFEST_FRAMES = {} as const satisfies FrameTable;

// ---------------------------------------------------------------------------
// Part 2 (#14): device migration.
// ---------------------------------------------------------------------------

/** Routes of device migration. */
export const MIGRATION_ROUTES = {} as const satisfies RouteTable;
/** Frames of device migration. */
export const MIGRATION_FRAMES = {} as const satisfies FrameTable;

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
} as const satisfies RouteTable;

/** The name of a gap route. */
export type ServiceRouteName = keyof typeof SERVICE_ROUTES;

/** Every gap frame name, by name. */
export const SERVICE_FRAMES = {
  ...STREAM_FRAMES,
  ...ARTIFACT_FRAMES,
  ...FILE_FRAMES,
  ...GROUP_FRAMES,
  ...MANIFEST_FRAMES,
  ...MIGRATION_FRAMES,
} as const satisfies FrameTable;

/**
 * The concrete path of `route` with each `:name` replaced by the
 * percent-encoded `params[name]`.
 *
 * @throws {@link TypeError} when a parameter is missing or empty (a
 * programming error, not input).
 * @example
 * ```ts
 * routePath(SERVICE_ROUTES.getConversation, { id: conversationId }); // '/conversations/c%2F1'
 * ```
 */
export function routePath(route: ServiceRoute, params: Readonly<Record<string, string>> = {}): string {
  return route.path.replace(/:([a-z_]+)/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined || value === '')
      throw new TypeError(`Missing path parameter ${name} of ${route.path}`);
    return encodeURIComponent(value);
  });
}
