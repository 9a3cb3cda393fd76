/**
 * What a user of a test world received from agents, typed by kind: text,
 * a stream (assembled), an artifact, a file, or any other message.
 *
 * @module
 */
import type {
  FileDownload,
  FilePayload,
  ReceivedMessage,
  UserClient,
  UserClientEvents,
} from 'agent-messaging-sdk';
import type { EnvelopePayload } from 'agent-messaging-sdk/crypto';

/** An artifact as the user's client received it (`approve(data)`, `deny(reason)`, `content` …). */
export type ReceivedArtifact = UserClientEvents['artifact'][0];
/** How a stream failed, as the user's client saw it. */
export type StreamFailure = UserClientEvents['streamError'][0];

/** What every reply says about where it came from (signed by the sender). */
export interface ReplyBase {
  /** The agent that sent it. */
  readonly senderId: string;
  /** The conversation it was sent to. */
  readonly conversationId: string;
}

/** A `text` message. */
export interface TextReply extends ReplyBase {
  readonly kind: 'text';
  /** The text. */
  readonly text: string;
  readonly messageId: string;
  /** `{ type: 'text', text }`, as sealed. */
  readonly payload: EnvelopePayload;
  /** The opened message. */
  readonly message: ReceivedMessage;
}

/**
 * A streamed reply, once it ended (or failed): the text assembled from
 * every delta, each checked against the agent's signature.
 */
export interface StreamReply extends ReplyBase {
  readonly kind: 'stream';
  readonly streamId: string;
  /** `'ended'`: the agent's signed end arrived; `'failed'`: see `failure`. */
  readonly status: 'ended' | 'failed';
  /** The assembled text (on failure, the part covered by a signature). */
  readonly text: string;
  /** How many deltas carried it (0 on failure). */
  readonly deltas: number;
  /** Why it failed, when `status` is `'failed'`. */
  readonly failure: StreamFailure | undefined;
}

/** An artifact (confirm, form, tool request): answer it with `world.answerArtifact()` or `artifact.approve()`. */
export interface ArtifactReply extends ReplyBase {
  readonly kind: 'artifact';
  readonly artifact: ReceivedArtifact;
  /** What it asks (`kind`, `title` …). */
  readonly content: ReceivedArtifact['content'];
  readonly messageId: string;
}

/** A `file` message: `bytes()` downloads, checks and decrypts it. */
export interface FileReply extends ReplyBase {
  readonly kind: 'file';
  /** The sender's file name (a display name, never a path). */
  readonly name: string | undefined;
  readonly contentType: string | undefined;
  /** The `file` payload (key included). */
  readonly file: FilePayload;
  /** The same payload, as sealed. */
  readonly payload: EnvelopePayload;
  readonly messageId: string;
  readonly message: ReceivedMessage;
  /** Downloads the file (read the result once). */
  download(): Promise<FileDownload>;
  /** Downloads and returns the plaintext bytes. */
  bytes(): Promise<Uint8Array>;
}

/** Any other message (a forwarded copy, a custom payload). */
export interface MessageReply extends ReplyBase {
  readonly kind: 'message';
  readonly messageId: string;
  readonly payload: EnvelopePayload;
  readonly message: ReceivedMessage;
}

/** Whatever an agent sent a user, by kind. */
export type TestReply = TextReply | StreamReply | ArtifactReply | FileReply | MessageReply;
/** The kinds of {@link TestReply}. */
export type ReplyKind = TestReply['kind'];
/** The reply of one kind. */
export type ReplyOfKind<K extends ReplyKind> = Extract<TestReply, { kind: K }>;

/** Listens to a user's client and records every reply, in arrival order. */
export function recordReplies(client: UserClient, into: TestReply[]): void {
  client.on('message', (message) => {
    // An artifact's message follows its `artifact` event, recorded below.
    if (message.payload.type !== 'artifact') into.push(replyOfMessage(client, message));
  });
  client.on('artifact', (artifact) =>
    into.push({
      kind: 'artifact',
      senderId: artifact.senderId,
      conversationId: artifact.conversationId,
      artifact,
      content: artifact.content,
      messageId: artifact.message.messageId,
    }),
  );
  client.on('streamEnd', (s) =>
    into.push({
      kind: 'stream',
      senderId: s.senderId,
      conversationId: s.conversationId,
      streamId: s.streamId,
      status: 'ended',
      text: s.text,
      deltas: s.deltas,
      failure: undefined,
    }),
  );
  client.on('streamError', (f) =>
    into.push({
      kind: 'stream',
      senderId: f.senderId ?? '',
      conversationId: f.conversationId ?? '',
      streamId: f.streamId,
      status: 'failed',
      text: f.text,
      deltas: 0,
      failure: f,
    }),
  );
}

function replyOfMessage(client: UserClient, message: ReceivedMessage): TestReply {
  const base = { senderId: message.senderId, conversationId: message.conversationId };
  const { payload } = message;
  if (payload.type === 'text' && typeof payload['text'] === 'string') {
    return { ...base, kind: 'text', text: payload['text'], messageId: message.messageId, payload, message };
  }
  if (payload.type === 'file') {
    const file = payload as unknown as FilePayload;
    const download = (): Promise<FileDownload> => client.files.download(file);
    return {
      ...base,
      kind: 'file',
      name: typeof payload['name'] === 'string' ? payload['name'] : undefined,
      contentType: typeof payload['content_type'] === 'string' ? payload['content_type'] : undefined,
      file,
      payload,
      messageId: message.messageId,
      message,
      download,
      bytes: async () => (await download()).toBytes(),
    };
  }
  return { ...base, kind: 'message', messageId: message.messageId, payload, message };
}

/** One line naming a reply, for error messages (no content beyond its kind and ids). */
export function describeReply(reply: TestReply): string {
  return `${reply.kind === 'artifact' ? 'an' : 'a'} ${reply.kind} reply from ${reply.senderId} in ${reply.conversationId}`;
}
