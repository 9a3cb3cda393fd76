/**
 * Type matrix consumer: the main entry, as a user's project sees it. Every
 * event of the Agent, the UserClient and the WebSocket dispatcher gets a
 * listener; the `satisfies` lists fail to compile when an event is added to
 * a map without being listed here.
 */
import {
  Agent,
  UserClient,
  isServiceError,
  ServiceError,
  StreamError,
  type StreamSummary,
  type AgentEventMap,
  type AgentNotificationMap,
  type AgentListenerEvent,
  type UserClientEvents,
} from 'agent-messaging-sdk';
import { createWsDispatcher, type WsDispatcherEvents } from 'agent-messaging-sdk/protocol';

const agentEvents = {
  'message.new': true,
  'relation.established': true,
  'relation.revoked': true,
  'relation.suspended': true,
  'relation.restored': true,
  artifact_response: true,
  'agent.capability_changed': true,
  'agent.governance': true,
  'reaction.update': true,
  'group.updated': true,
  'artifact.expired': true,
  'system.group_key_rotated': true,
  'grant.revoked': true,
  event: true,
  decryptFailure: true,
  error: true,
  fatal: true,
  connected: true,
  disconnected: true,
  reconnecting: true,
  recovered: true,
  rateLimited: true,
  duplicate: true,
  sessionInvalidated: true,
  authExpiring: true,
  keys: true,
  keyChanged: true,
  keyRefused: true,
  keyWarning: true,
  membersChanged: true,
  decisionRefused: true,
  warning: true,
  turnStopped: true,
  messageEdited: true,
  messageDeleted: true,
  messageRead: true,
  closed: true,
} as const satisfies Record<AgentListenerEvent, true>;
const userEvents = {
  message: true,
  messageFailed: true,
  connected: true,
  tokenRenewed: true,
  disconnected: true,
  sessionInvalidated: true,
  connectionFailed: true,
  keyChanged: true,
  keyRefused: true,
  keyWarning: true,
  membersChanged: true,
  artifact: true,
  reaction: true,
  status: true,
  streamStart: true,
  streamDelta: true,
  streamEnd: true,
  streamError: true,
  streamPart: true,
  streamPartDropped: true,
  groupUpdated: true,
  groupKeyRotated: true,
  authExpiring: true,
  turnStopped: true,
  messageEdited: true,
  messageDeleted: true,
  messageRead: true,
} as const satisfies Record<keyof UserClientEvents, true>;
const dispatcherEvents = {
  open: true,
  event: true,
  close: true,
  reconnecting: true,
  fatal: true,
  protocolError: true,
  sessionInvalidated: true,
  authExpiring: true,
  renewed: true,
  authError: true,
  unknownFrame: true,
  state: true,
} as const satisfies Record<keyof WsDispatcherEvents, true>;
export const listed: number =
  Object.keys(agentEvents).length + Object.keys(userEvents).length + Object.keys(dispatcherEvents).length;

export function useAgent(agent: Agent): void {
  agent.on('message.new', async (msg) => {
    const text: string | undefined = msg.text;
    await msg.reply(`echo: ${text ?? JSON.stringify(msg.payload)}`);
  });
  agent.on('relation.established', (e) => void e.type);
  agent.on('relation.revoked', (e) => void e.type);
  agent.on('relation.suspended', (e) => void e.type);
  agent.on('relation.restored', (e) => void e.type);
  agent.on('artifact_response', (e) => void e.type);
  agent.on('agent.capability_changed', (e) => void e.payload);
  agent.on('agent.governance', (e) => void e.type);
  agent.on('reaction.update', (e) => void [e.payload, e.emoji, e.targetMessageId, e.action]);
  agent.on('group.updated', (e) => void e.payload);
  agent.on('artifact.expired', (e) => void [e.payload, e.artifactId, e.revision]);
  agent.on('system.group_key_rotated', (e) => void e.payload);
  agent.on('grant.revoked', (e) => void e.payload);
  agent.on('event', (e) => void e.type);
  agent.on('decryptFailure', (f) => void f.reason);
  agent.on('messageEdited', (e) => void [e.targetId, e.text, e.verified]);
  agent.on('messageDeleted', (e) => void [e.targetId, e.verified]);
  agent.on('messageRead', (e) => void [e.readerId, e.messageIds]);
  agent.on('error', (err) => void err.code);
  agent.on('fatal', (err, info) => void [err.code, info]);
  agent.on('connected', (info) => void info.attempt);
  agent.on('disconnected', (info) => void [info.code, info.reason]);
  agent.on('reconnecting', (info) => void info.delayMs);
  agent.on('recovered', (info) => void info.pendingCount);
  agent.on('rateLimited', (info) => void info);
  agent.on('duplicate', (info) => void info.by);
  agent.on('sessionInvalidated', () => undefined);
  agent.on('authExpiring', (info) => void info.expiresInSeconds);
  agent.on('keys', (e) => void e);
  agent.on('keyChanged', (e) => void [e.peerId, e.fingerprints]);
  agent.on('membersChanged', (e) => void [e.conversationId, e.added, e.removed]);
  agent.on('warning', (w) => void [w.code, w.sizeBytes]);
  agent.once('closed', (r) => void r.drained);
  agent.command('stream', async (ctx) => {
    const w = await ctx.replyStream({ coalesceMs: 20 });
    await w.write('…');
    const summary: StreamSummary = await w.end();
    void summary.deltas;
  });
  void agent.streamFrom('c1', ['a', 'b']).catch((err: unknown) => {
    if (err instanceof StreamError) void [err.reason, err.code, err.streamId];
  });
  const onError = (err: AgentNotificationMap['error'][0]): void => void err.message;
  agent.on('error', onError).off('error', onError);
  const onMessage = (msg: AgentEventMap['message.new']): void => void msg.conversationId;
  agent.on('message.new', onMessage).off('message.new', onMessage);
}

export async function useCapabilities(agent: Agent, client: UserClient): Promise<void> {
  const state = await agent.manifest.get();
  const revision = await agent.manifest.update(
    { name: 'n', description: 'd', version: '1.0.0', tools: [], data_scopes: ['profile.read'] },
    { basedOnVersion: state.head_version, failFast: false },
  );
  const decided: 'accepted' | 'rejected' = (await agent.manifest.awaitDecision(revision.version)).decision;
  await client.manifests.accept(agent.agentId, revision.version);
  const asked = await agent.grants.request({
    conversationId: 'c',
    scope: 'profile.read',
    windowSeconds: 60,
    reason: 'r',
  });
  await client.grants.grant(asked.grantId, { windowSeconds: 60 });
  const read = await agent.grants.read(asked.grantId);
  if (read.scope === 'profile.read') void read.data.display_name;
  await client.grants.revoke(asked.grantId);
  void decided;
}

export function useUserClient(client: UserClient): void {
  client.on('message', (m) => void [m.senderId, m.payload]);
  // A received payload narrows on `type`: a peer's kinds and the service's delivery-failure notice.
  client.on('message', (m) => {
    switch (m.payload.type) {
      case 'text':
        return void (m.payload.text satisfies string);
      case 'file':
        return void (m.payload.object_key satisfies string);
      case 'delivery.failed':
        return void (m.payload.message_id satisfies string);
      default:
        return;
    }
  });
  client.on('messageFailed', (f) => void f);
  client.on('connected', () => undefined);
  client.on('tokenRenewed', () => undefined);
  client.on('disconnected', (info) => void [info.code, info.reason]);
  client.on('sessionInvalidated', () => undefined);
  client.once('connectionFailed', (err) => void err.code);
  client.on('keyChanged', (e) => void e.peerId);
  client.on('membersChanged', (e) => void e.added);
  client.on('artifact', (a) => void [a.content.kind, a.approve, a.deny]);
  client.on('reaction', (r) => void [r.emoji, r.messageId, r.action]);
  client.on('status', (s) => void [s.state, s.text, s.senderId, s.reason]);
  client.on('messageEdited', (e) => void [e.targetId, e.text, e.verified]);
  client.on('messageDeleted', (e) => void [e.targetId, e.verified]);
  client.on('messageRead', (e) => void [e.readerId, e.messageIds]);
  client.on('streamStart', (e) => void [e.streamId, e.conversationId, e.senderId]);
  client.on('streamDelta', (e) => void [e.seq, e.delta, e.text]);
  client.on('streamEnd', (e) => void [e.text, e.deltas]);
  client.on('streamError', (f) => void [f.reason, f.text, f.detail, f.error?.code]);
  client.on('streamPart', (u) => void [u.index, u.part.type, u.parts.length, u.seq]);
  client.on('streamPartDropped', (d) => void [d.reason, d.error.code, d.seq]);
  client.on('groupUpdated', (e) => void [e.conversationId, e.change, e.memberIds]);
  client.on('groupKeyRotated', (e) => void [e.keyVersion, e.reason]);
  const listener = (m: UserClientEvents['message'][0]): void => void m.messageId;
  client.on('message', listener);
  client.off('message', listener);
  client.removeAllListeners();
}

export function useDispatcher(): void {
  const ws = createWsDispatcher({ url: 'wss://api.example.com/ws', agentId: 'a1', token: 'hsk_x' });
  ws.on('open', (info) => void [info.attempt, info.acks]);
  ws.on('event', (frame) => void frame.delivery_id);
  ws.on('close', (info) => void info.code);
  ws.on('reconnecting', (info) => void info.delayMs);
  ws.on('fatal', (err, info) => void [err.code, info.closeCode]);
  ws.on('protocolError', (err) => void err.code);
  ws.on('sessionInvalidated', () => undefined);
  ws.on('authExpiring', (info) => void info.expiresInSeconds);
  ws.on('renewed', () => undefined);
  ws.on('authError', (info) => void info.terminal);
  ws.on('unknownFrame', (info) => void info.type);
  ws.once('state', (info) => void [info.from, info.to]);
}

export async function main(): Promise<void> {
  const agent = new Agent({ baseUrl: 'https://api.example.com', agentId: 'a1', token: 'hsk_x' });
  useAgent(agent);
  const client = new UserClient({ baseUrl: 'https://api.example.com' });
  useUserClient(client);
  useDispatcher();
  try {
    await agent.connect();
  } catch (err) {
    if (isServiceError(err, 'AGENT_BANNED')) void err.status;
    if (err instanceof ServiceError) void err.code;
  }
  await agent.close({ timeoutMs: 5_000 });
}
