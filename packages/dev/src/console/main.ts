/**
 * The dev console in the browser (served by `ams serve --dev` under
 * `/_console/`). Be the human: a dev user in one click, its agents, a chat
 * sealed and opened in this page, live over the user WebSocket; and the
 * service's side of the selected agent with its delivery log and two
 * "break things" buttons, each shown as a `curl` line.
 *
 * @module
 */
import { attributeForward, fromBase64, signDecision } from 'agent-messaging-sdk/protocol';
import { PRESENCE_FRAMES, routePath, SERVICE_ROUTES } from 'agent-messaging-sdk/protocol';
import { WS_CLOSE_CODES } from 'agent-messaging-sdk/protocol';
import type { AgentKeys } from 'agent-messaging-sdk/protocol';
import type { ArtifactAnswerPayload } from 'agent-messaging-sdk/protocol';
import { ConsoleCallError, curlLine, request, requestBytes, requestUpload, type ConsoleCall } from './api.js';
import { artifactOf, renderArtifact, reviseArtifactCard, type AnswerOutcome } from './artifacts.js';
import { fileOf, renderFile } from './files.js';
import { encryptFile, filePayload, uploadBody, type UploadAnswer } from './file-send.js';
import { coalesce, feedStateLine, LiveFeed } from './live.js';
import { UserFeed } from './user-feed.js';
import type { PendingEntry } from './service-view.js';
import {
  backupRecord,
  keysOf,
  loadUser,
  newKeys,
  openWire,
  saveUser,
  sealPayload,
  sealText,
  type Recipient,
  type SealContext,
  type StoredUser,
} from './keys.js';
import { sendSystemEvent, setRelation, type ControlActionDeps } from './control-actions.js';
import { addReactButton, reactionOf, REACT_EMOJI, showReaction } from './reactions.js';
import { ConsoleStatus } from './status.js';
import { showReplyTo } from './replies.js';
import { showMessageAction } from './message-actions.js';
import { renderRequests, type RequestDeps } from './requests.js';
import { isGroupUpdate, rosterMemberIds, showGroupBar, type GroupAdminDeps } from './group-admin.js';
import { useWebhook, useWebSocket, type WebhookModeDeps } from './webhook-mode.js';
import { renderLog, renderStatus, type AttemptEntry, type LogEntry } from './service-view.js';
import { ConsoleStreams } from './streams.js';
import { renderStreamParts } from './stream-parts.js';
import { forwardLabel } from './forwards.js';
import { startAgentAdmin } from './agent-admin.js';
import { sendTurnStop, showTurnNotice, turnControlNotice, type TurnStopDeps } from './turn-stop.js';
import { renderReadiness } from './readiness.js';
import { markAgent, toneStatus, type ServiceStatus } from './status-marks.js';
import { applyLogFilter, startLogFilter } from './log-filter.js';
import { renderInspector, type Decrypted, type DeliveryView } from './inspector.js';
import { renderTimeline } from './timeline.js';

interface AgentItem {
  readonly agent_id: string;
  readonly name?: string;
}
interface Member {
  readonly id: string;
  readonly public_key: string | null;
}
const $ = <T extends HTMLElement>(id: string): T => document.getElementById(id) as T;

const state: {
  user?: StoredUser;
  keys?: AgentKeys;
  token?: string;
  agentId?: string;
  conversationId?: string;
  recipients: Recipient[];
  signing: Map<string, Uint8Array>;
  socket?: WebSocket;
  /** Server time minus page time (the server may run on a virtual clock). */
  clockOffsetMs: number;
  /** Deliveries whose attempts are shown. */
  opened: Set<string>;
  /** Agent names by id (sender labels in a group). */
  names: Map<string, string>;
  /** The open conversation is a group. */
  inGroup: boolean;
  /** An agent added in this page whose chat opens once its bot connects. */
  pendingChat?: AgentItem | undefined;
  /** The delivery shown in the inspector (read again on each feed event). */
  inspecting?: { readonly agentId: string; readonly deliveryId: string } | undefined;
  /** The open conversation's timeline is shown (read again on each feed event). */
  timelineOpen: boolean;
} = {
  timelineOpen: false,
  recipients: [],
  signing: new Map(),
  clockOffsetMs: 0,
  opened: new Set(),
  names: new Map(),
  inGroup: false,
};

async function syncClock(): Promise<string> {
  const c = await call<{ now_ms: number; now: string }>({ method: 'GET', path: '/_control/clock' });
  state.clockOffsetMs = c.now_ms - Date.now();
  return c.now;
}

function showCurl(call: ConsoleCall): void {
  $('curl').textContent = curlLine(location.origin, call);
}

function say(text: string): void {
  $('connection').textContent = text;
}

async function call<T>(c: ConsoleCall, show = false): Promise<T> {
  if (show) showCurl(c);
  try {
    return await request<T>(c, state.token);
  } catch (err) {
    // Virtual time moves past the token's expiry: a dev user signs in again (control API) and retries once.
    if (!(err instanceof ConsoleCallError && err.code === 'TOKEN_EXPIRED' && c.auth === true)) throw err;
    await renewToken();
    return request<T>(c, state.token);
  }
}

async function issueToken(user: StoredUser): Promise<void> {
  const t = await request<{ access_token: string }>({
    method: 'POST',
    path: '/_control/users/access-token',
    body: { user_id: user.userId, device_id: user.deviceId, device_name: 'dev console' },
  });
  state.token = t.access_token;
}

async function renewToken(): Promise<void> {
  if (state.user === undefined) return;
  await issueToken(state.user);
  connectSocket();
}

async function signIn(user: StoredUser): Promise<void> {
  await issueToken(user);
  state.user = user;
  state.keys = keysOf(user);
  $('user').textContent = `${user.email} (${user.userId})`;
  await syncClock();
  connectSocket();
  await listAgents();
  userFeed.watch(user.userId);
}

/** Agents created for the user elsewhere are listed, and the selected agent's new requests read, without a click. */
const userFeed = new UserFeed({
  agentsChanged: () => void run(listAgents),
  requestsChanged: (agentId) => {
    if (agentId === state.agentId) void run(refreshRequests);
  },
});

/** Reads the selected agent's requests to the owner again (selection, the user feed, a decision, Refresh). */
async function refreshRequests(): Promise<void> {
  if (state.agentId !== undefined) await renderRequests($('requests'), state.agentId, requestDeps);
}

/** Marks the user as signed in with keys published (tests wait on `data-user-id`). */
function ready(user: StoredUser): void {
  $('user').dataset['userId'] = user.userId;
}

async function newUser(): Promise<void> {
  const tag = crypto.randomUUID().slice(0, 8);
  const email = `dev-${tag}@console.test`;
  const created = await call<{ user_id: string }>(
    {
      method: 'POST',
      path: '/_control/users',
      body: { email, account_password: crypto.randomUUID(), display_name: `Dev ${tag}` },
    },
    true,
  );
  await adopt(created.user_id, email);
}

/**
 * Becomes an existing dev user by e-mail, e.g. the owner `ams dev bootstrap`
 * created (`AMS_OWNER_EMAIL`): its agents are listed at once. Its keys are made
 * here; a user whose keys were made elsewhere (a key backup exists, e.g. by
 * `ams dev send`) cannot be opened in this page.
 */
async function signInAs(): Promise<void> {
  const email = $<HTMLInputElement>('owner-email').value.trim();
  if (email === '') return;
  const account = await call<{ user_id: string; has_key_backup: boolean }>(
    { method: 'GET', path: `/_control/users?email=${encodeURIComponent(email)}` },
    true,
  );
  const saved = loadUser();
  if (saved?.userId === account.user_id) {
    await signIn(saved);
    ready(saved);
    return;
  }
  if (account.has_key_backup) {
    throw new Error(
      `${email} already has keys made elsewhere (e.g. by 'ams dev send'): this page cannot open its messages. Use a fresh 'ams dev bootstrap' owner or New dev user.`,
    );
  }
  await adopt(account.user_id, email);
}

/** Signs a user in on a new device of this page, makes its keys here and publishes them. */
async function adopt(userId: string, email: string): Promise<void> {
  const deviceId = crypto.randomUUID();
  const user: StoredUser = { userId, email, deviceId, ...newKeys() };
  await signIn(user);
  await call({
    method: 'POST',
    path: '/keys/backup',
    auth: true,
    body: await backupRecord(state.keys!, deviceId),
  });
  saveUser(user);
  ready(user);
  say('signed in; keys kept in this page');
}

async function listAgents(): Promise<void> {
  const agents = await call<AgentItem[]>({
    method: 'GET',
    path: routePath(SERVICE_ROUTES.listAgents),
    auth: true,
  });
  const list = $('agents');
  list.replaceChildren();
  for (const a of agents) {
    state.names.set(a.agent_id, a.name ?? a.agent_id);
    const b = listButton(a.name ?? a.agent_id, () => void run(() => openChat(a)));
    b.dataset['agentId'] = a.agent_id;
    if (a.agent_id === state.agentId && !state.inGroup) b.setAttribute('aria-current', 'true');
    list.append(b.parentElement!);
  }
  $('agents-hint').hidden = agents.length > 0;
  // The online dot of each agent (status-marks.ts); a failed look-up leaves it unknown.
  await Promise.all(
    agents.map((a) =>
      call<ServiceStatus>({ method: 'GET', path: `${agentPath(a.agent_id)}/service` }).then(
        (s) => markAgent(a.agent_id, s),
        () => undefined,
      ),
    ),
  );
  ($('new-group') as HTMLButtonElement).disabled = agents.length === 0;
  await listGroups();
}

function listButton(text: string, onClick: () => void): HTMLButtonElement {
  const b = document.createElement('button');
  b.type = 'button';
  b.textContent = text;
  b.addEventListener('click', onClick);
  document.createElement('li').append(b);
  return b;
}

interface GroupItem {
  readonly conversation_id: string;
  readonly name: string;
}

async function listGroups(): Promise<void> {
  const groups = await call<GroupItem[]>({
    method: 'GET',
    path: routePath(SERVICE_ROUTES.listGroups),
    auth: true,
  });
  const list = $('groups');
  list.replaceChildren();
  for (const g of groups) {
    const b = listButton(g.name, () => void run(() => openGroup(g)));
    b.dataset['groupId'] = g.conversation_id;
    if (g.conversation_id === state.conversationId) b.setAttribute('aria-current', 'true');
    list.append(b.parentElement!);
  }
}

/** A group of the user with every agent listed (they must be the user's own). */
async function newGroup(): Promise<void> {
  const agentIds = [...state.names.keys()];
  const name = `Dev group ${new Date().toISOString().slice(11, 19)}`;
  const g = await call<GroupItem>(
    {
      method: 'POST',
      path: routePath(SERVICE_ROUTES.createGroup),
      auth: true,
      body: { name, agent_ids: agentIds },
    },
    true,
  );
  await listGroups();
  await openGroup(g);
}

async function openGroup(g: GroupItem): Promise<void> {
  state.inGroup = true;
  await enterConversation(g.conversation_id, `Group ${g.name}`);
  await showGroupBar($('group-bar'), g.conversation_id, groupDeps);
}

/** What the open group's bar (group-admin.ts) uses of the page. */
const groupDeps: GroupAdminDeps = {
  call,
  say,
  run: (fn) => void run(fn),
  userId: () => state.user?.userId,
  signingKeys: () => state.keys?.signing,
  nameOf: (id) => state.names.get(id) ?? id,
  membersChanged(detail) {
    if (detail.conversation_id !== state.conversationId) return;
    const signed = rosterMemberIds(detail);
    state.recipients = detail.members.flatMap((m) => {
      if (signed !== undefined && !signed.has(m.id)) return []; // only the owner-signed roster's members
      const key = m.public_key === null ? undefined : fromBase64(m.public_key);
      return key === undefined ? [] : [{ id: m.id, publicKey: key }];
    });
  },
  async left(conversationId) {
    if (state.conversationId === conversationId) {
      Object.assign(state, { conversationId: undefined, inGroup: false, recipients: [] });
      $('group-bar').hidden = true;
      $('chat-title').textContent = 'Chat';
      $('messages').replaceChildren();
      ($('text') as HTMLInputElement).disabled = true;
      ($('send') as HTMLButtonElement).disabled = true;
    }
    await listGroups();
  },
};

async function signingKey(id: string): Promise<Uint8Array | undefined> {
  const known = state.signing.get(id);
  if (known !== undefined) return known;
  const k = await call<{ signing_public_key?: string | null }>({
    method: 'GET',
    path: routePath(SERVICE_ROUTES.lookupKeys, { principal_id: id }),
    auth: true,
  });
  const key = k.signing_public_key == null ? undefined : fromBase64(k.signing_public_key);
  if (key !== undefined) state.signing.set(id, key);
  return key;
}

function addMessage(text: string, who: 'mine' | 'theirs' | 'failed', id?: string): HTMLLIElement | undefined {
  if (id !== undefined && document.querySelector(`[data-message-id="${CSS.escape(id)}"]`)) return undefined;
  const li = document.createElement('li');
  li.className = who;
  li.textContent = text;
  if (id !== undefined) li.dataset['messageId'] = id;
  $('messages').append(li);
  li.scrollIntoView({ block: 'end' });
  return li;
}

/** Who seals from this page, for the open conversation. */
function sealContext(eventType?: string): SealContext {
  const { user, keys, conversationId } = state;
  if (user === undefined || keys === undefined || conversationId === undefined)
    throw new Error('Open a conversation first.');
  return {
    userId: user.userId,
    keys,
    conversationId,
    recipients: state.recipients,
    nowMs: Date.now() + state.clockOffsetMs,
    ...(eventType === undefined ? {} : { eventType }),
  };
}

/** Seals the human's answer to an artifact in the page and posts it. */
async function answerArtifact(answer: ArtifactAnswerPayload): Promise<AnswerOutcome> {
  const seal = sealContext('artifact_response');
  const path = routePath(SERVICE_ROUTES.answerArtifact, {
    id: seal.conversationId,
    artifact_id: answer.artifact_id,
  });
  const wire = await sealPayload(answer, seal);
  const r = await call<AnswerOutcome>({
    method: 'POST',
    path,
    auth: true,
    body: { revision: answer.revision, wire_envelope: wire },
  });
  showCurl({
    method: 'POST',
    path,
    auth: true,
    body: { revision: answer.revision, wire_envelope: '<sealed in the browser>' },
  });
  await refreshService();
  return r;
}

/** The ciphertext of a file object (`GET /r2/<object_key>`, user token in the header). */
async function fetchObject(objectKey: string): Promise<Uint8Array> {
  const path = `/r2/${encodeURIComponent(objectKey)}`;
  showCurl({ method: 'GET', path, auth: true });
  try {
    return await requestBytes(path, state.token);
  } catch (err) {
    if (!(err instanceof ConsoleCallError && err.code === 'TOKEN_EXPIRED')) throw err;
    await renewToken();
    return requestBytes(path, state.token);
  }
}

/** Reacts to a message of the other side, sealed in the page. */
async function react(messageId: string): Promise<void> {
  const seal = sealContext('reaction.update');
  const path = routePath(SERVICE_ROUTES.react, { id: seal.conversationId });
  const payload = { type: 'reaction', message_id: messageId, emoji: REACT_EMOJI, action: 'add' } as const;
  const wire = await sealPayload(payload, seal);
  await call({ method: 'POST', path, auth: true, body: { message_id: messageId, wire_envelope: wire } });
  showCurl({
    method: 'POST',
    path,
    auth: true,
    body: { message_id: messageId, wire_envelope: '<sealed in the browser>' },
  });
  showReaction(messageId, seal.userId, REACT_EMOJI, 'add');
}

const agentStatus = new ConsoleStatus();

/** A `status.update` frame (#26): opened in the page, shown under the conversation. */
async function statusReceived(wire: string): Promise<void> {
  const { user, keys } = state;
  if (user === undefined || keys === undefined) return;
  const m = await openWire(wire, { userId: user.userId, keys, signingKey });
  if (m.conversationId === state.conversationId) agentStatus.received(m, (id) => state.names.get(id) ?? id);
}

/** A `reaction.update` frame: opened in the page, shown on its message. */
async function reactionReceived(wire: string): Promise<void> {
  const { user, keys } = state;
  if (user === undefined || keys === undefined) return;
  const m = await openWire(wire, { userId: user.userId, keys, signingKey });
  const r = reactionOf(m.payload);
  if (r !== undefined && m.conversationId === state.conversationId)
    showReaction(r.message_id, m.senderId, r.emoji, r.action);
}

/** The bubble of a stream (created when its key opened). */
function streamBubble(streamId: string): HTMLElement | null {
  return document.querySelector<HTMLElement>(`#messages [data-stream-id="${CSS.escape(streamId)}"]`);
}

const streams = new ConsoleStreams({
  async open(wire) {
    const { user, keys } = state;
    if (user === undefined || keys === undefined) throw new Error('signed out');
    return openWire(wire, { userId: user.userId, keys, signingKey });
  },
  signingKey,
  view: {
    started(streamId, conversationId) {
      if (conversationId !== state.conversationId) return;
      const li = addMessage('', 'theirs');
      if (li === undefined) return;
      li.classList.add('stream');
      li.dataset['streamId'] = streamId;
      li.dataset['state'] = 'streaming';
    },
    grew(streamId, text, parts) {
      const li = streamBubble(streamId);
      if (li !== null) renderStreamParts(li, text, parts);
    },
    ended(streamId, text, deltas, parts) {
      const li = streamBubble(streamId);
      if (li === null) return;
      renderStreamParts(li, text, parts);
      li.dataset['state'] = 'ended';
      li.title = `${deltas} deltas; end signature verified`;
      void refreshService();
    },
    failed(streamId, why, text, parts) {
      const li = streamBubble(streamId);
      if (li === null) return;
      renderStreamParts(li, text, parts);
      li.append(` [stream failed: ${why}]`);
      li.dataset['state'] = 'failed';
    },
  },
});

async function show(wire: string): Promise<void> {
  const { user, keys } = state;
  if (user === undefined || keys === undefined) return;
  try {
    const m = await openWire(wire, { userId: user.userId, keys, signingKey });
    if (m.conversationId !== state.conversationId) return;
    if (showMessageAction($('messages'), m.senderId, user.userId, m.payload)) return;
    agentStatus.replied(m.senderId, m.createdAt);
    const p = m.payload as { type: string; text?: string };
    const notice = turnControlNotice(m.payload);
    if (notice !== undefined) return showTurnNotice($('messages'), notice, m.messageId);
    const artifact = artifactOf(m.payload);
    // A later revision of a card already shown updates it in place.
    if (artifact !== undefined && reviseArtifactCard($('messages'), artifact, answerArtifact)) return;
    const forwarded = await attributeForward(m.payload, m.senderId, signingKey);
    const name = (id: string): string => (id === user.userId ? 'you' : (state.names.get(id) ?? id));
    const text =
      forwarded !== undefined
        ? forwardLabel(forwarded, name)
        : p.type === 'text'
          ? (p.text ?? '')
          : `[${p.type}]`;
    const li = addMessage(text, m.senderId === user.userId ? 'mine' : 'theirs', m.messageId);
    if (li !== undefined) showReplyTo(li, m.payload);
    if (li !== undefined) li.dataset['senderId'] = m.senderId;
    if (li !== undefined && state.inGroup && m.senderId !== user.userId)
      li.dataset['sender'] = state.names.get(m.senderId) ?? m.senderId;
    const file = fileOf(m.payload);
    if (li !== undefined && artifact !== undefined) renderArtifact(li, artifact, answerArtifact);
    else if (li !== undefined && file !== undefined) renderFile(li, file, fetchObject);
    else if (li?.className === 'theirs') addReactButton(li, react);
  } catch (err) {
    addMessage(`could not open a message: ${(err as Error).message}`, 'failed');
  }
}

async function openChat(a: AgentItem): Promise<void> {
  if (state.pendingChat?.agent_id === a.agent_id) state.pendingChat = undefined;
  if (state.agentId !== a.agent_id) {
    state.opened.clear();
    // The inspector showed another agent's delivery: close it (the timeline follows the new chat).
    if (state.inspecting !== undefined) closeDrawers();
  }
  agentStatus.reset();
  state.agentId = a.agent_id;
  state.inGroup = false;
  $('group-bar').hidden = true;
  const conv = await call<{ conversation_id: string }>(
    {
      method: 'POST',
      path: routePath(SERVICE_ROUTES.createConversation),
      auth: true,
      body: { agent_id: a.agent_id },
    },
    true,
  );
  await enterConversation(conv.conversation_id, `Chat with ${a.name ?? a.agent_id}`);
  await refreshRequests();
}

/** Opens a conversation (one-to-one or group): its members' keys, its history. */
async function enterConversation(conversationId: string, title: string): Promise<void> {
  state.conversationId = conversationId;
  // For a group, the detail is the group's, its members' public keys merged in.
  const detail = await call<{ members: Member[] }>({
    method: 'GET',
    path: routePath(SERVICE_ROUTES.getConversation, { id: conversationId }),
    auth: true,
  });
  state.recipients = detail.members.flatMap((m) => {
    const key = m.public_key === null ? undefined : fromBase64(m.public_key);
    return key === undefined ? [] : [{ id: m.id, publicKey: key }];
  });
  $('chat-title').textContent = title;
  $('messages').replaceChildren();
  document.querySelectorAll<HTMLElement>('#agents button, #groups button').forEach((el) => {
    const current = state.inGroup
      ? el.dataset['groupId'] === conversationId
      : el.dataset['agentId'] === state.agentId;
    el.setAttribute('aria-current', String(current));
  });
  const history = await call<{ wire_envelope: string }[]>({
    method: 'GET',
    path: routePath(SERVICE_ROUTES.readMessages, { id: conversationId }),
    auth: true,
  });
  for (const m of history) await show(m.wire_envelope);
  ($('text') as HTMLInputElement).disabled = false;
  ($('send') as HTMLButtonElement).disabled = false;
  ($('stop-turn') as HTMLButtonElement).disabled = false;
  await refreshService();
}

const turnStopDeps: TurnStopDeps = {
  conversationId: () => state.conversationId,
  seal: (payload) => sealPayload(payload, sealContext()),
  call: (c) => call(c),
  showCurl,
};

async function send(): Promise<void> {
  const input = $<HTMLInputElement>('text');
  const text = input.value.trim();
  const { conversationId } = state;
  if (text === '' || conversationId === undefined) return;
  const wire = await sealText(text, sealContext());
  const sent = await call<{ message_id: string }>({
    method: 'POST',
    path: routePath(SERVICE_ROUTES.userSendMessage, { id: conversationId }),
    auth: true,
    body: { wire_envelope: wire },
  });
  showCurl({
    method: 'POST',
    path: routePath(SERVICE_ROUTES.userSendMessage, { id: conversationId }),
    auth: true,
    body: { wire_envelope: '<sealed in the browser>' },
  });
  input.value = '';
  addMessage(text, 'mine', sent.message_id);
  await refreshService();
}

/**
 * Encrypts a picked file in the page, uploads the ciphertext and sends the
 * sealed `file` message (its key inside) to the open conversation.
 */
async function sendFile(file: File): Promise<void> {
  const seal = sealContext();
  const plain = new Uint8Array(await file.arrayBuffer());
  const encrypted = await encryptFile(plain);
  const path = routePath(SERVICE_ROUTES.uploadFile, { id: seal.conversationId });
  showCurl({ method: 'POST', path, auth: true });
  let answer: UploadAnswer;
  try {
    answer = await requestUpload<UploadAnswer>(path, uploadBody(encrypted), state.token);
  } catch (err) {
    if (!(err instanceof ConsoleCallError && err.code === 'TOKEN_EXPIRED')) throw err;
    await renewToken();
    answer = await requestUpload<UploadAnswer>(path, uploadBody(encrypted), state.token);
  }
  const payload = filePayload(encrypted, answer, {
    name: file.name === '' ? 'file' : file.name,
    contentType: file.type === '' ? 'application/octet-stream' : file.type,
    size: plain.length,
  });
  const wire = await sealPayload(payload, seal);
  const sent = await call<{ message_id: string }>({
    method: 'POST',
    path: routePath(SERVICE_ROUTES.userSendMessage, { id: seal.conversationId }),
    auth: true,
    body: { wire_envelope: wire },
  });
  const li = addMessage('', 'mine', sent.message_id);
  if (li !== undefined) renderFile(li, payload, fetchObject);
  say(`sent ${payload.name}: ${payload.size} bytes, encrypted in this page`);
  await refreshService();
}

function connectSocket(): void {
  state.socket?.close();
  const ws = new WebSocket(
    `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}${routePath(SERVICE_ROUTES.webSocket)}`,
  );
  state.socket = ws;
  ws.addEventListener('open', () => ws.send(JSON.stringify({ type: 'auth', access_token: state.token })));
  ws.addEventListener('message', (e) => {
    const frame = JSON.parse(String(e.data)) as { type?: string; wire_envelope?: string };
    if (LIST_CHANGES.has(frame.type ?? '')) relistLater();
    if (frame.type === 'auth.ok') say('live: user WebSocket connected');
    else if (ConsoleStreams.isStreamFrame(frame)) streams.receive(frame);
    else if (frame.type === 'reaction.update' && typeof frame.wire_envelope === 'string')
      void run(() => reactionReceived(frame.wire_envelope!));
    else if (frame.type === PRESENCE_FRAMES.statusUpdate && typeof frame.wire_envelope === 'string')
      void run(() => statusReceived(frame.wire_envelope!));
    else if (isGroupUpdate(frame) && state.inGroup && state.conversationId !== undefined) {
      // Members changed (or the key version moved): read the group again before the next seal.
      const open = state.conversationId;
      void run(() => showGroupBar($('group-bar'), open, groupDeps));
    } else if (typeof frame.wire_envelope === 'string') void show(frame.wire_envelope).then(refreshService);
  });
  ws.addEventListener('close', (e) => {
    if (state.socket !== ws) return;
    say('user WebSocket closed');
    // Token expired (virtual time moved on): sign in again and reconnect.
    if (e.code === WS_CLOSE_CODES.TOKEN_EXPIRED) void run(renewToken);
  });
}

const agentPath = (id: string): string => `/_control/agents/${encodeURIComponent(id)}`;

/** The service panel re-rendered once per animation frame however many feed events arrive. */
const refreshLater = coalesce(() => run(refreshService));
/** User WebSocket frames after which the group (and agent) lists are read again. */
const LIST_CHANGES = new Set(['group.updated', 'system.group_key_rotated']);
const relistLater = coalesce(() =>
  run(() => Promise.all([listGroups(), listAgents()]).then(() => undefined)),
);
/** Deliveries whose attempts were opened by the page itself (a pending one that failed an attempt). */
const autoOpened = new Set<string>();
const liveFeed = new LiveFeed({
  event: () => refreshLater(),
  state(s, agentId) {
    const el = $('feed-state');
    el.textContent = feedStateLine(s);
    el.dataset['state'] = s;
    // The watched agent is gone (the feed was refused): list the agents again.
    if (s === 'off' && agentId !== undefined) relistLater();
  },
});

async function refreshService(): Promise<void> {
  const id = state.agentId;
  if (id === undefined) return;
  const path = agentPath(id);
  const status = await call<Record<string, string | number | boolean>>({
    method: 'GET',
    path: `${path}/service`,
  });
  renderStatus($('status'), status);
  toneStatus($('status'));
  markAgent(id, status);
  // An agent just added here: its chat opens by itself once the bot is connected (its keys are published).
  const waiting = state.pendingChat;
  if (waiting?.agent_id === id && Number(status['websocket_connections']) > 0) {
    state.pendingChat = undefined;
    await openChat(waiting);
    return;
  }
  const logs = await call<LogEntry[]>({ method: 'GET', path: `${path}/delivery-logs?limit=50` });
  const pending = await call<PendingEntry[]>({ method: 'GET', path: `${path}/deliveries/pending` });
  liveFeed.watch(id);
  for (const p of pending) {
    if (p.attempt_count > 0 && p.state !== 'awaiting_ack' && !autoOpened.has(p.delivery_id)) {
      autoOpened.add(p.delivery_id);
      state.opened.add(p.delivery_id);
    }
  }
  const attempts = new Map<string, readonly AttemptEntry[]>();
  for (const d of state.opened) {
    const p = `${path}/deliveries/${encodeURIComponent(d)}/attempts`;
    attempts.set(d, await call<AttemptEntry[]>({ method: 'GET', path: p }));
  }
  renderLog(
    $('log').querySelector('tbody')!,
    logs,
    attempts,
    {
      replay: (d) => void run(() => replay(d)),
      toggleAttempts: (d) => {
        if (!state.opened.delete(d)) state.opened.add(d);
        void run(refreshService);
      },
      inspect: (d) => void run(() => inspect(id, d)),
    },
    pending,
  );
  applyLogFilter();
  await refreshDrawers();
}

/** The page's name for an id: `you`, an agent's name, or the id. */
function nameOf(id: string): string {
  return id === state.user?.userId ? 'you' : (state.names.get(id) ?? id);
}

/** Opens the envelope when the dev user sealed it (the page holds only the user's keys). */
async function decrypt(v: DeliveryView): Promise<Decrypted> {
  const { user, keys } = state;
  if (user === undefined || keys === undefined || v.sender_id !== user.userId) {
    return {
      reason: `Sealed by ${nameOf(v.sender_id)}: only its recipients' keys open it. This page opens the dev user's own messages.`,
    };
  }
  try {
    const m = await openWire(v.wire_envelope, { userId: user.userId, keys, signingKey });
    return { payload: m.payload };
  } catch (err) {
    return { reason: `could not open it: ${(err as Error).message}` };
  }
}

/** Shows one delivery in the inspector (and keeps it there, read again on each feed event). */
async function inspect(agentId: string, deliveryId: string): Promise<void> {
  state.inspecting = { agentId, deliveryId };
  state.timelineOpen = false;
  $('timeline').hidden = true;
  await drawInspector();
}

/**
 * Draws of the drawers started so far: a draw renders only if no later one started, so an older
 * read that answers last (a click's, overtaken by a feed event's) never hides a newer state.
 */
const draws = { inspector: 0, timeline: 0 };

async function drawInspector(): Promise<void> {
  const at = state.inspecting;
  if (at === undefined) return;
  const draw = ++draws.inspector;
  const v = await call<DeliveryView>({
    method: 'GET',
    path: `${agentPath(at.agentId)}/deliveries/${encodeURIComponent(at.deliveryId)}`,
  });
  const decrypted = await decrypt(v);
  if (state.inspecting !== at || draw !== draws.inspector) return;
  renderInspector($('inspector'), v, decrypted, { name: nameOf, close: closeDrawers });
}

/** Shows the open conversation's deliveries in order. */
async function drawTimeline(): Promise<void> {
  const conversationId = state.conversationId;
  if (conversationId === undefined || !state.timelineOpen) return;
  const draw = ++draws.timeline;
  const list = await call<DeliveryView[]>({
    method: 'GET',
    path: `/_control/conversations/${encodeURIComponent(conversationId)}/deliveries`,
  });
  if (!state.timelineOpen || state.conversationId !== conversationId || draw !== draws.timeline) return;
  renderTimeline($('timeline'), $('chat-title').textContent ?? conversationId, list, {
    name: nameOf,
    inspect: (v) => void run(() => inspect(v.agent_id, v.delivery_id)),
    close: closeDrawers,
  });
}

async function refreshDrawers(): Promise<void> {
  await drawInspector();
  await drawTimeline();
}

function closeDrawers(): void {
  state.inspecting = undefined;
  state.timelineOpen = false;
  $('inspector').hidden = true;
  $('timeline').hidden = true;
}

/** Queues a delivery again with the same id: the bot should skip it as a duplicate. */
async function replay(deliveryId: string): Promise<void> {
  const id = state.agentId;
  if (id === undefined) return;
  const path = `${agentPath(id)}/deliveries/${encodeURIComponent(deliveryId)}/replay`;
  await call({ method: 'POST', path }, true);
  say(`delivery ${deliveryId} replayed (same delivery id)`);
  await refreshService();
}

async function dropSocket(): Promise<void> {
  const id = state.agentId;
  if (id === undefined) return;
  const r = await call<{ closed: number }>({ method: 'POST', path: `${agentPath(id)}/websocket/drop` }, true);
  say(`dropped ${r.closed} agent WebSocket connection(s)`);
  await refreshService();
}

async function setGovernance(): Promise<void> {
  const id = state.agentId;
  if (id === undefined) return;
  const level = $<HTMLSelectElement>('governance-level').value;
  await call({ method: 'PUT', path: `${agentPath(id)}/governance`, body: { level } }, true);
  say(`governance level ${level}`);
  await refreshService();
}

async function advance(): Promise<void> {
  const ms = Number($<HTMLInputElement>('advance-ms').value);
  await call({ method: 'POST', path: '/_control/clock/advance', body: { ms } }, true);
  say(`virtual time now ${await syncClock()}`);
  await refreshService();
}

async function failDeliveries(): Promise<void> {
  const id = state.agentId;
  if (id === undefined) return;
  const count = Number($<HTMLInputElement>('fail-n').value);
  const chosen = $<HTMLSelectElement>('fail-status').value;
  const status = chosen === 'timeout' ? chosen : Number(chosen);
  await call({ method: 'POST', path: `${agentPath(id)}/webhook-faults`, body: { status, count } }, true);
  say(
    `the webhook ${status === 'timeout' ? 'times out' : `answers ${status}`} for the next ${count} deliveries`,
  );
  await refreshService();
}

async function recover(): Promise<void> {
  const id = state.agentId;
  if (id === undefined) return;
  const r = await call<{ pending_count: number }>(
    { method: 'POST', path: `/_control/agents/${encodeURIComponent(id)}/recover` },
    true,
  );
  say(`recovered: ${r.pending_count} pending deliveries sent`);
  await refreshService();
}

/** What the owner's decisions of requests.ts use of the page. */
const requestDeps: RequestDeps = {
  call,
  say,
  run: (fn) => void run(fn),
  refresh: () => refreshRequests(),
  userId: () => signedInUser().userId,
  sign: (statement) => signDecision(statement, keysOf(signedInUser()).signing),
};

function signedInUser(): StoredUser {
  if (state.user === undefined) throw new Error('Sign in first.');
  return state.user;
}

/** What the delivery-mode buttons of webhook-mode.ts use of the page. */
const modeDeps: WebhookModeDeps = {
  call,
  say,
  refresh: () => refreshService(),
  agentName: (id) => state.names.get(id),
};

/** What the control-API buttons of control-actions.ts use of the page. */
const controlDeps: ControlActionDeps = { call, say, refresh: refreshService };

/** The one-to-one conversation open in the chat (relations are per agent conversation). */
function openChatId(): string | undefined {
  return state.inGroup ? undefined : state.conversationId;
}

async function run(fn: () => Promise<void>): Promise<void> {
  try {
    await fn();
  } catch (err) {
    $('error').textContent = `error: ${(err as Error).message}`;
  } finally {
    redrawControls();
  }
}

/** Disables what cannot work yet, with the reason (readiness.ts). */
function redrawControls(): void {
  renderReadiness({
    signedIn: state.user !== undefined && state.token !== undefined,
    agentId: state.agentId,
    chatOpen: !state.inGroup && state.conversationId !== undefined,
    conversationOpen: state.conversationId !== undefined,
  });
}

function start(): void {
  $('new-user').addEventListener('click', () => void run(newUser));
  $('sign-in-as').addEventListener('submit', (e) => {
    e.preventDefault();
    void run(signInAs);
  });
  $('refresh-agents').addEventListener('click', () => void run(listAgents));
  $('new-group').addEventListener('click', () => void run(newGroup));
  $('composer').addEventListener('submit', (e) => {
    e.preventDefault();
    void run(send);
  });
  $('stop-turn').addEventListener(
    'click',
    () => void run(async () => void (await sendTurnStop(turnStopDeps))),
  );
  $('advance').addEventListener('click', () => void run(advance));
  $('fail').addEventListener('click', () => void run(failDeliveries));
  $('recover').addEventListener('click', () => void run(recover));
  $('drop-ws').addEventListener('click', () => void run(dropSocket));
  $('set-governance').addEventListener('click', () => void run(setGovernance));
  $('refresh-requests').addEventListener('click', () => void run(refreshRequests));
  $('show-timeline').addEventListener('click', () => {
    state.inspecting = undefined;
    state.timelineOpen = true;
    $('inspector').hidden = true;
    void run(drawTimeline);
  });
  document.addEventListener('keydown', (e) => {
    if (e.key === 'Escape') closeDrawers();
  });
  $<HTMLInputElement>('file').addEventListener('change', (e) => {
    const input = e.target as HTMLInputElement;
    const picked = input.files?.[0];
    if (picked !== undefined) void run(() => sendFile(picked)).finally(() => (input.value = ''));
  });
  $('use-webhook').addEventListener('click', () => {
    const url = $<HTMLInputElement>('webhook-url').value;
    void run(() => useWebhook(modeDeps, state.agentId, url));
  });
  $('use-websocket').addEventListener('click', () => void run(() => useWebSocket(modeDeps, state.agentId)));
  $('suspend-relation').addEventListener('click', () => {
    void run(() => setRelation(controlDeps, openChatId(), 'suspend'));
  });
  $('restore-relation').addEventListener('click', () => {
    void run(() => setRelation(controlDeps, openChatId(), 'restore'));
  });
  $('send-event').addEventListener('click', () => {
    const input = {
      type: $<HTMLInputElement>('event-type').value,
      payload: $<HTMLInputElement>('event-payload').value,
    };
    void run(() => sendSystemEvent(controlDeps, state.agentId, input, openChatId()));
  });
  startAgentAdmin({
    call,
    selectedAgentId: () => state.agentId,
    agentName: (id) => state.names.get(id),
    // Selected at once; the chat opens by itself once the bot is connected (refreshService).
    agentCreated: async (a) => {
      Object.assign(state, {
        agentId: a.agent_id,
        inGroup: false,
        conversationId: undefined,
        pendingChat: a,
      });
      state.opened.clear();
      $('chat-title').textContent =
        `${a.name ?? a.agent_id}: start your bot with its env file; the chat opens when it connects`;
      $('messages').replaceChildren();
      ($('text') as HTMLInputElement).disabled = true;
      ($('send') as HTMLButtonElement).disabled = true;
      await listAgents();
      await refreshService();
      await refreshRequests();
    },
    refreshService,
    run: (fn) => void run(fn),
  });
  redrawControls();
  startLogFilter();
  const saved = loadUser();
  if (saved !== undefined) void run(async () => ready((await signIn(saved), saved)));
}

start();
