/**
 * The open group's bar in the chat: its members (with **Remove** for the
 * owner), **Invite** (a one-time code to give a bot or another user, who
 * joins with `agent.groups.join(code)`), and **Leave**. After each change,
 * and when a `group.updated` event says the members changed, the page reads
 * the group again so its next messages are sealed for exactly its members.
 *
 * @module
 */
import {
  buildGroupRoster,
  fromBase64,
  portableBackend,
  routePath,
  SERVICE_ROUTES,
  signGroupRoster,
  type SignedGroupRoster,
} from 'agent-messaging-sdk/protocol';
import type { ConsoleCall } from './api.js';
import { button } from './dom.js';

/** A group member as `GET /groups/:id` gives it (wire names). */
export interface GroupMemberView {
  readonly id: string;
  readonly kind: string;
  readonly role: string;
  readonly public_key: string | null;
  readonly signing_public_key?: string | null;
}

/** The group detail (wire names). */
export interface GroupDetailView {
  readonly conversation_id: string;
  readonly name: string;
  readonly owner_id: string;
  readonly key_version: number;
  readonly members: readonly GroupMemberView[];
  /** The owner-signed roster last published, or null. */
  readonly roster?: SignedGroupRoster | null;
}

/** What the bar needs from the page. */
export interface GroupAdminDeps {
  call<T>(c: ConsoleCall, show?: boolean): Promise<T>;
  say(text: string): void;
  run(fn: () => Promise<void>): void;
  /** The signed-in user's id. */
  userId(): string | undefined;
  /** The signed-in user's Ed25519 key pair (signs the rosters of groups it owns). */
  signingKeys(): { readonly publicKey: Uint8Array; readonly privateKey: Uint8Array } | undefined;
  /** A display name for a member id. */
  nameOf(id: string): string;
  /** The group changed: take its members as the open conversation's recipients. */
  membersChanged(detail: GroupDetailView): void;
  /** The user left the group: close it and list the groups again. */
  left(conversationId: string): Promise<void>;
}

/** Reads the group, hands its members to the page and draws the bar. */
export async function showGroupBar(
  bar: HTMLElement,
  conversationId: string,
  d: GroupAdminDeps,
): Promise<void> {
  const read = () =>
    d.call<GroupDetailView>({
      method: 'GET',
      path: routePath(SERVICE_ROUTES.getGroup, { id: conversationId }),
      auth: true,
    });
  let detail = await read();
  if (await signRoster(detail, d)) detail = await read();
  d.membersChanged(detail);
  drawBar(bar, detail, d);
}

/** The roster's member ids, or undefined before the owner published one. */
export function rosterMemberIds(g: GroupDetailView): ReadonlySet<string> | undefined {
  return g.roster == null ? undefined : new Set(g.roster.roster.members.map((m) => m.id));
}

type Keyed = GroupMemberView & { readonly kind: 'user' | 'agent'; readonly public_key: string };

const keyed = (m: GroupMemberView): m is Keyed =>
  m.public_key !== null && (m.kind === 'user' || m.kind === 'agent');

/**
 * As the owner, signs and publishes a roster of `members` (default: every
 * listed member with keys) when it differs from the published one. Returns
 * true when it published one.
 */
async function signRoster(
  g: GroupDetailView,
  d: GroupAdminDeps,
  change: { members?: readonly GroupMemberView[]; ownerId?: string } = {},
): Promise<boolean> {
  const me = d.userId();
  const signing = d.signingKeys();
  const current = g.roster?.roster;
  if (me === undefined || signing === undefined || (current?.owner_id ?? g.owner_id) !== me) return false;
  const ownerId = change.ownerId ?? me;
  const roster = buildGroupRoster({
    conversationId: g.conversation_id,
    version: (current?.version ?? 0) + 1,
    ownerId,
    signedBy: me,
    members: (change.members ?? g.members).filter(keyed).map((m) => ({
      id: m.id,
      kind: m.kind,
      encryption: fromBase64(m.public_key)!,
      signing: m.signing_public_key == null ? undefined : fromBase64(m.signing_public_key),
    })),
    backend: portableBackend,
  });
  const same =
    current !== undefined &&
    current.owner_id === ownerId &&
    JSON.stringify(current.members) === JSON.stringify(roster.members);
  if (same || !roster.members.some((m) => m.id === ownerId)) return false;
  await d.call({
    method: 'PUT',
    path: routePath(SERVICE_ROUTES.putGroupRoster, { id: g.conversation_id }),
    auth: true,
    body: { roster: await signGroupRoster(roster, signing, portableBackend) },
  });
  return true;
}

function drawBar(bar: HTMLElement, g: GroupDetailView, d: GroupAdminDeps): void {
  const me = d.userId();
  const owner = g.owner_id === me;
  const list = document.createElement('ul');
  list.className = 'members';
  for (const m of g.members) {
    const li = document.createElement('li');
    li.dataset['memberId'] = m.id;
    const name = document.createElement('span');
    name.className = 'member-name';
    name.textContent = `${m.id === me ? 'you' : d.nameOf(m.id)} (${m.kind}${m.role === 'owner' ? ', owner' : ''})`;
    li.append(name);
    if (owner && m.id !== me) {
      li.append(button('Remove', 'remove-member', () => d.run(() => removeMember(bar, g, m.id, d))));
    }
    list.append(li);
  }
  const invite = document.createElement('output');
  invite.id = 'invite-code';
  bar.replaceChildren(
    list,
    button('Invite', 'invite', () => d.run(() => newInvite(invite, g, d))),
    invite,
    button('Leave group', 'leave-group', () => d.run(() => leave(g, d))),
  );
  bar.dataset['keyVersion'] = String(g.key_version);
  bar.hidden = false;
}

async function newInvite(out: HTMLElement, g: GroupDetailView, d: GroupAdminDeps): Promise<void> {
  const i = await d.call<{ code: string; expires_at?: string }>(
    {
      method: 'POST',
      path: routePath(SERVICE_ROUTES.createInvite, { id: g.conversation_id }),
      auth: true,
      body: {},
    },
    true,
  );
  out.textContent = i.code;
  out.title = i.expires_at === undefined ? 'one use' : `one use, until ${i.expires_at}`;
  d.say(`invite code for ${g.name}: give it to a bot (agent.groups.join(code)) or a user; it works once`);
}

async function removeMember(bar: HTMLElement, g: GroupDetailView, memberId: string, d: GroupAdminDeps) {
  await d.call(
    {
      method: 'DELETE',
      path: routePath(SERVICE_ROUTES.removeMember, { id: g.conversation_id, member_id: memberId }),
      auth: true,
    },
    true,
  );
  d.say(`${d.nameOf(memberId)} removed from ${g.name}`);
  await showGroupBar(bar, g.conversation_id, d);
}

async function leave(g: GroupDetailView, d: GroupAdminDeps): Promise<void> {
  const me = d.userId();
  const heir = g.members.find((m) => m.id !== me && m.kind === 'user');
  if (heir !== undefined) {
    const members = g.members.filter((m) => m.id !== me);
    await signRoster(g, d, { members, ownerId: heir.id }); // hand the group over before leaving
  }
  const r = await d.call<{ deleted?: boolean }>(
    {
      method: 'POST',
      path: routePath(SERVICE_ROUTES.leaveGroup, { id: g.conversation_id }),
      auth: true,
      body: {},
    },
    true,
  );
  d.say(`you left ${g.name}${r.deleted === true ? ' (no human left: the group is deleted)' : ''}`);
  await d.left(g.conversation_id);
}

/** True when a frame is a `group.updated` event (its envelope is opened by the page as usual). */
export function isGroupUpdate(frame: { readonly type?: unknown }): boolean {
  return frame.type === 'group.updated' || frame.type === 'system.group_key_rotated';
}
