/**
 * The Chat SDK adapter: a Chat SDK bot (`new Chat({ adapters: { ams } })`) on
 * our service, end to end encrypted. Our {@link Agent} is the transport
 * underneath (WebSocket or webhook); the adapter maps its events to the Chat
 * SDK's `process*` calls and the Chat SDK's posts, streams, edits, reactions
 * and typing to the Agent's sealed sends. docs/chat-sdk.md has the table of
 * what maps and what does not.
 *
 * @module
 */
import {
  BaseFormatConverter,
  ConsoleLogger,
  Message,
  defaultEmojiResolver,
  parseMarkdown,
  stringifyMarkdown,
  type Adapter,
  type AdapterPostableMessage,
  type Attachment,
  type Author,
  type ChatInstance,
  type EmojiValue,
  type FetchResult,
  type FormattedContent,
  type Logger as ChatLogger,
  type RawMessage,
  type Root,
  type StreamChunk,
  type StreamOptions,
  type ThreadInfo,
  type WebhookOptions,
} from 'chat';
import {
  Agent,
  ValidationError,
  type AgentNotificationMap,
  type AgentOptions,
  type ArtifactResponseEvent,
  type FilePayload,
  type IncomingMessage,
  type MessagePayload,
  type ReactionEvent,
} from '../index.js';
import {
  answerToActions,
  cardToArtifact,
  isStoredCard,
  storedAnswerToActions,
  storedCardOf,
  type CardActionMap,
  type CardChoice,
} from './cards.js';
import { AMS_ADAPTER_NAME, decodeAmsThreadId, encodeAmsThreadId, type AmsThreadId } from './thread-id.js';
import { streamToWriter } from './stream.js';
import { cardOf, filesOf, isFilePayload, textOf, toBufferLike, toBytes, toUnicode } from './payloads.js';

/** What a Chat SDK message of this adapter carries as `raw`. */
export interface AmsRawMessage {
  readonly conversationId: string;
  /** Our message id (for a card: the artifact id; for a stream: the stream id). */
  readonly messageId: string;
  /** The signed sender. */
  readonly senderId: string;
  /** The decrypted payload, for messages received or sent as one message. */
  readonly payload?: MessagePayload | Readonly<Record<string, unknown>> | undefined;
}

/** Options of {@link createAmsAdapter}. */
export interface AmsAdapterConfig {
  /**
   * The Agent to run on. Given, the adapter never connects nor closes it (you
   * do, as for any other feature of yours on the same Agent). Left out, the
   * adapter builds one from `baseUrl`, `agentId`, `token` and `agentOptions`,
   * connects it in `initialize()` and closes it in `chat.shutdown()`.
   */
  readonly agent?: Agent;
  /** The service's base URL. @defaultValue `process.env.AMS_BASE_URL` */
  readonly baseUrl?: string;
  /** The agent's id. @defaultValue `process.env.AMS_AGENT_ID` */
  readonly agentId?: string;
  /** The agent token (`hsk_…`). @defaultValue `process.env.AMS_AGENT_TOKEN` */
  readonly token?: string;
  /** Other options of the Agent the adapter builds (key store, mode, webhook …). */
  readonly agentOptions?: Omit<AgentOptions, 'baseUrl' | 'agentId' | 'token'>;
  /** The bot's name for `@name` mentions. @defaultValue the Chat's `userName`, else `process.env.AMS_BOT_USERNAME`, else `bot` */
  readonly userName?: string;
  /** A Chat SDK logger. @defaultValue the Chat's logger once initialised */
  readonly logger?: ChatLogger;
  /** How cards are sent as artifacts. */
  readonly cards?: {
    /** `high`: denied after 30 s unanswered. @defaultValue `'normal'` */
    readonly sensitivity?: 'normal' | 'high';
    /** Time to live of the artifact. @defaultValue 24 h */
    readonly ttlMs?: number;
  };
}

/** Markdown both ways: the service's text payloads carry the Chat SDK's markdown as is. */
class AmsFormatConverter extends BaseFormatConverter {
  fromAst(ast: Root): string {
    return stringifyMarkdown(ast).trimEnd();
  }
  toAst(platformText: string): Root {
    return parseMarkdown(platformText);
  }
}

/** Sent cards kept in memory (their handles, for edits); answers map back through the Chat SDK's state too. */
const MAX_CARDS = 10_000;
/** The default time to live of a card's artifact (the service's default): 24 h. */
const CARD_TTL_MS = 24 * 3_600_000;
/** A card's action map in the Chat SDK's state: this prefix and the artifact id. */
const CARD_KEY = 'ams:card:';
/** A status text is at most 200 characters. */
const STATUS_MAX = 200;

/** A card sent as an artifact: where, how its answer maps back, and its handle (for revisions). */
interface SentCard {
  readonly threadId: string;
  actions: CardActionMap;
  readonly handle: ArtifactHandleLike;
  /** When its artifact expires (ms since the epoch). */
  readonly expiresAt: number;
}
type ArtifactHandleLike = Awaited<ReturnType<Agent['artifacts']['send']>>;

type Edited = AgentNotificationMap['messageEdited'][0];
type Deleted = AgentNotificationMap['messageDeleted'][0];
type Stopped = AgentNotificationMap['turnStopped'][0];

/**
 * The Chat SDK adapter for agent-messaging-sdk. Build it with {@link createAmsAdapter}.
 */
export class AmsAdapter implements Adapter<AmsThreadId, AmsRawMessage> {
  readonly name = AMS_ADAPTER_NAME;
  /** The Chat SDK keeps each thread's history in its state (the service stores ciphertext only). */
  readonly persistThreadHistory = true;
  /** The Agent underneath. */
  readonly agent: Agent;
  readonly #owned: boolean;
  readonly #config: AmsAdapterConfig;
  readonly #converter = new AmsFormatConverter();
  readonly #kinds = new Map<string, AmsThreadId['kind']>();
  readonly #dmByUser = new Map<string, string>();
  readonly #cards = new Map<string, SentCard>();
  readonly #listeners: [string, (...args: never[]) => unknown][] = [];
  #chat: ChatInstance | undefined;
  #fetchHandler: ((request: Request) => Promise<Response>) | undefined;
  #logger: ChatLogger;
  #userName: string;
  #ready: () => void = () => undefined;
  readonly #initialized: Promise<void>;

  /** @throws {@link ValidationError} when no Agent is given and `baseUrl`, `agentId` or `token` is missing. */
  constructor(config: AmsAdapterConfig = {}) {
    this.#config = config;
    this.#logger = config.logger ?? new ConsoleLogger('info').child(AMS_ADAPTER_NAME);
    this.#userName = config.userName ?? process.env['AMS_BOT_USERNAME'] ?? 'bot';
    this.#owned = config.agent === undefined;
    this.agent = config.agent ?? buildAgent(config);
    this.#initialized = new Promise<void>((resolve) => (this.#ready = resolve));
    // Registered now, so that events arriving before chat.initialize() wait for it instead of being lost.
    this.#attach();
  }

  /** Listens to the Agent's events (once; again after a `disconnect()`). */
  #attach(): void {
    if (this.#listeners.length > 0) return;
    this.#listen('message.new', (m: IncomingMessage) => this.#onMessage(m));
    this.#listen('artifact_response', (e: ArtifactResponseEvent) => this.#onAnswer(e));
    // Reactions come over WebSocket only (a listener in webhook mode would only log a warning).
    if (this.agent.mode === 'websocket') {
      this.#listen('reaction.update', (e: ReactionEvent) => this.#onReaction(e));
    }
    this.#listen(
      'messageEdited',
      (e: Edited) => void this.#onEdited(e).catch((err) => this.#warn('edit', err)),
    );
    this.#listen(
      'messageDeleted',
      (e: Deleted) => void this.#onDeleted(e).catch((err) => this.#warn('delete', err)),
    );
    this.#listen(
      'turnStopped',
      (e: Stopped) => void this.#onStopped(e).catch((err) => this.#warn('stop', err)),
    );
  }

  /** The bot's name (for `@name` mentions in groups). */
  get userName(): string {
    return this.#userName;
  }

  /** The agent's id. */
  get botUserId(): string {
    return this.agent.agentId;
  }

  /** Called by the Chat SDK: keeps the Chat, lets waiting events through, connects an Agent the adapter built. */
  async initialize(chat: ChatInstance): Promise<void> {
    this.#chat = chat;
    if (this.#config.logger === undefined) this.#logger = chat.getLogger(AMS_ADAPTER_NAME);
    if (this.#config.userName === undefined && process.env['AMS_BOT_USERNAME'] === undefined) {
      this.#userName = chat.getUserName();
    }
    this.#attach();
    this.#ready();
    if (this.#owned && this.agent.state === 'idle') await this.agent.connect();
  }

  /** Called by `chat.shutdown()`: stops listening; closes the Agent only if the adapter built it. */
  async disconnect(): Promise<void> {
    for (const [event, fn] of this.#listeners.splice(0)) {
      this.agent.off(event as 'message.new', fn as never);
    }
    if (this.#owned) await this.agent.close();
  }

  /**
   * Webhook mode: `bot.webhooks.ams(request)` is the Agent's own fetch handler
   * (signature, de-duplication, decryption); in WebSocket mode nothing comes
   * by webhook (404).
   */
  async handleWebhook(request: Request, _options?: WebhookOptions): Promise<Response> {
    if (this.agent.mode !== 'webhook') {
      return new Response('this agent receives over WebSocket', { status: 404 });
    }
    this.#fetchHandler ??= this.agent.fetchHandler();
    return this.#fetchHandler(request);
  }

  encodeThreadId(platformData: AmsThreadId): string {
    return encodeAmsThreadId(platformData);
  }

  decodeThreadId(threadId: string): AmsThreadId {
    return decodeAmsThreadId(threadId);
  }

  /** A conversation is its own channel (the service has no sub-threads). */
  channelIdFromThreadId(threadId: string): string {
    decodeAmsThreadId(threadId);
    return threadId;
  }

  isDM(threadId: string): boolean {
    return decodeAmsThreadId(threadId).kind === 'dm';
  }

  /** The thread of the one-to-one conversation with a user (one the user opened by adding the agent). */
  async openDM(userId: string): Promise<string> {
    let conversationId = this.#dmByUser.get(userId);
    if (conversationId === undefined) {
      await this.#refreshConversations();
      conversationId = this.#dmByUser.get(userId);
    }
    if (conversationId === undefined) {
      throw new ValidationError({ message: 'No conversation with this user: the user adds the agent first' });
    }
    return encodeAmsThreadId({ conversationId, kind: 'dm' });
  }

  parseMessage(raw: AmsRawMessage): Message<AmsRawMessage> {
    const kind = this.#kinds.get(raw.conversationId) ?? 'dm';
    const threadId = encodeAmsThreadId({ conversationId: raw.conversationId, kind });
    const text = textOf(raw.payload);
    return this.#message(threadId, raw, text, [], new Date());
  }

  /**
   * Sends a post: files first (each an encrypted file message), then a card as
   * an artifact (when it has buttons or selects) or the text. Resolves with the
   * last message's id (the artifact id for a card).
   */
  async postMessage(threadId: string, message: AdapterPostableMessage): Promise<RawMessage<AmsRawMessage>> {
    const { conversationId } = decodeAmsThreadId(threadId);
    let last: AmsRawMessage | undefined;
    for (const file of filesOf(message)) {
      const bytes = await toBytes(file.data);
      const sent = await this.agent.files.upload(conversationId, bytes, {
        name: file.filename,
        ...(file.mimeType === undefined ? {} : { contentType: file.mimeType }),
      });
      last = {
        conversationId,
        messageId: sent.sent.messageId,
        senderId: this.agent.agentId,
        payload: sent.file,
      };
    }
    const card = cardOf(message);
    const artifact = card === undefined ? undefined : cardToArtifact(card);
    if (artifact !== undefined) {
      const { cards } = this.#config;
      const ttlMs = cards?.ttlMs ?? CARD_TTL_MS;
      const expiresAt = Date.now() + ttlMs;
      const handle = await this.agent.artifacts.send(conversationId, {
        content: artifact.content,
        ...(cards?.sensitivity === undefined ? {} : { sensitivity: cards.sensitivity }),
        ttlMs,
      });
      const sent = { threadId, actions: artifact.actions, handle, expiresAt };
      this.#remember(handle.artifactId, sent);
      // The card was sent: a state that fails costs only answers after a restart, not this post.
      await this.#store(handle.artifactId, sent).catch((err: unknown) =>
        this.#logger.warn('ams: keeping a card in the state failed', { error: String(err) }),
      );
      last = { conversationId, messageId: handle.artifactId, senderId: this.agent.agentId };
    } else {
      const text = this.#converter.renderPostable(message);
      if (text !== '' || last === undefined) {
        const sent = await this.agent.send(conversationId, text);
        last = {
          conversationId,
          messageId: sent.messageId,
          senderId: this.agent.agentId,
          payload: { type: 'text', text },
        };
      }
    }
    return { id: last.messageId, threadId, raw: last };
  }

  /**
   * Edits one of the agent's messages: a sealed `message.edit` with the new
   * text. A card sent as an artifact is edited into another card as a new
   * revision of the artifact (the human answers the newest one).
   *
   * @throws {@link ValidationError} when a card sent as an artifact would become text or a card without
   * buttons or selects (an artifact cannot turn into a message), or when the card was posted by another
   * process or before a restart (its artifact's handle is in that process's memory).
   */
  async editMessage(
    threadId: string,
    messageId: string,
    message: AdapterPostableMessage,
  ): Promise<RawMessage<AmsRawMessage>> {
    const { conversationId } = decodeAmsThreadId(threadId);
    const sentCard = this.#cards.get(messageId);
    if (sentCard !== undefined) {
      const card = cardOf(message);
      const artifact = card === undefined ? undefined : cardToArtifact(card);
      if (artifact === undefined) {
        throw new ValidationError({
          message: 'A card sent as an artifact can only be edited into a card with buttons or selects',
        });
      }
      await sentCard.handle.replace({ content: artifact.content });
      sentCard.actions = artifact.actions;
      await this.#store(messageId, sentCard);
      return { id: messageId, threadId, raw: { conversationId, messageId, senderId: this.agent.agentId } };
    }
    if ((await this.#stored(messageId)) !== undefined) {
      throw new ValidationError({
        message: 'A card posted by another process (or before a restart) cannot be edited: post a new card',
      });
    }
    const text = this.#converter.renderPostable(message);
    await this.agent.edit(conversationId, messageId, text);
    const raw = { conversationId, messageId, senderId: this.agent.agentId, payload: { type: 'text', text } };
    return { id: messageId, threadId, raw };
  }

  /**
   * Deletes one of the agent's messages: a sealed `message.delete`. A card sent
   * as an artifact is closed instead: a last revision saying it no longer needs
   * an answer, living the shortest time the service allows; its answer no
   * longer reaches `onAction`.
   */
  async deleteMessage(threadId: string, messageId: string): Promise<void> {
    const sentCard = this.#cards.get(messageId);
    if (sentCard !== undefined || (await this.#stored(messageId)) !== undefined) {
      this.#cards.delete(messageId);
      await this.#chat?.getState().delete(`${CARD_KEY}${messageId}`);
      await sentCard?.handle.withdraw('This card was deleted: it no longer needs an answer.');
      return;
    }
    await this.agent.delete(decodeAmsThreadId(threadId).conversationId, messageId);
  }

  /** A sealed reaction (the Chat SDK's emoji names become Unicode). */
  async addReaction(threadId: string, messageId: string, emoji: EmojiValue | string): Promise<void> {
    await this.agent.react(decodeAmsThreadId(threadId).conversationId, messageId, toUnicode(emoji));
  }

  async removeReaction(threadId: string, messageId: string, emoji: EmojiValue | string): Promise<void> {
    const { conversationId } = decodeAmsThreadId(threadId);
    await this.agent.react(conversationId, messageId, toUnicode(emoji), { remove: true });
  }

  /** Typing is our sealed status: `status` as its text, else the plain "working" indicator. */
  async startTyping(threadId: string, status?: string): Promise<void> {
    const text = status === undefined ? '' : status.slice(0, STATUS_MAX);
    await this.agent.status(decodeAmsThreadId(threadId).conversationId, text);
  }

  /**
   * A streamed reply (signed, end to end encrypted): text chunks are written,
   * `task_update` chunks become plan steps, `plan_update` the plan's title
   * step. The Chat SDK's abort signal (and the human's stop) abort the stream.
   */
  async stream(
    threadId: string,
    textStream: AsyncIterable<string | StreamChunk>,
    options?: StreamOptions,
  ): Promise<RawMessage<AmsRawMessage>> {
    const { conversationId } = decodeAmsThreadId(threadId);
    const writer = await this.agent.stream(conversationId);
    const summary = await streamToWriter(writer, textStream, options?.signal);
    const raw = {
      conversationId,
      messageId: writer.streamId,
      senderId: this.agent.agentId,
      payload: { type: 'text', text: summary.text },
    };
    return { id: writer.streamId, threadId, raw };
  }

  /**
   * History is kept by the Chat SDK (`persistThreadHistory`): the service
   * stores ciphertext the adapter does not reopen, so this returns no message.
   */
  fetchMessages(_threadId: string): Promise<FetchResult<AmsRawMessage>> {
    return Promise.resolve({ messages: [] });
  }

  async fetchThread(threadId: string): Promise<ThreadInfo> {
    const { conversationId, kind } = decodeAmsThreadId(threadId);
    return { id: threadId, channelId: threadId, isDM: kind === 'dm', metadata: { conversationId, kind } };
  }

  renderFormatted(content: FormattedContent): string {
    return this.#converter.fromAst(content);
  }

  // ---- events from the Agent

  #listen<T>(event: string, fn: (e: T) => unknown): void {
    const wrapped = fn as (...args: never[]) => unknown;
    this.#listeners.push([event, wrapped]);
    this.agent.on(event as 'message.new', wrapped as never);
  }

  async #chatReady(): Promise<ChatInstance> {
    await this.#initialized;
    return this.#chat!;
  }

  async #onMessage(msg: IncomingMessage): Promise<void> {
    const chat = await this.#chatReady();
    const threadId = await this.#threadOf(msg.conversationId);
    const payload =
      msg.payload.type === 'forwarded' ? (msg.payload as { payload?: unknown }).payload : msg.payload;
    const attachments = isFilePayload(payload) ? [this.#attachment(payload)] : [];
    const text = textOf(payload);
    if (text === '' && attachments.length === 0) {
      this.#logger.debug('ams: a message without text or file was not passed on', { type: msg.payload.type });
      return;
    }
    const raw: AmsRawMessage = {
      conversationId: msg.conversationId,
      messageId: msg.messageId,
      senderId: msg.senderId,
      payload: msg.payload,
    };
    const message = this.#message(threadId, raw, text, attachments, new Date(msg.createdAt));
    // The Agent de-duplicates (exactly once with a shared store) and orders per conversation:
    // the Chat SDK's own de-duplication is not needed. Awaited: a handler's failure is the Agent's `error`.
    await chat.processMessage(this, threadId, message, { deduplicate: false });
  }

  async #onAnswer(e: ArtifactResponseEvent): Promise<void> {
    const chat = await this.#chatReady();
    const artifactId = (e.payload as { artifact_id?: unknown }).artifact_id;
    if (typeof artifactId !== 'string' || e.status !== 'approved') return;
    const data = (e.payload as { data?: unknown }).data;
    // This process's own map first; else the Chat SDK's state (a card posted before a restart, or by
    // another process sharing the state).
    const card = this.#cards.get(artifactId);
    const stored = card === undefined ? await this.#stored(artifactId) : undefined;
    const threadId = card?.threadId ?? stored?.threadId;
    let choices: CardChoice[] = [];
    if (card !== undefined) choices = answerToActions(card.actions, data);
    else if (stored !== undefined) choices = await storedAnswerToActions(stored, data);
    for (const choice of choices) {
      await chat.processAction(
        {
          adapter: this,
          actionId: choice.actionId,
          ...(choice.value === undefined ? {} : { value: choice.value }),
          messageId: artifactId,
          threadId: threadId!,
          user: this.#author(e.senderId),
          raw: e,
        },
        undefined,
      );
    }
  }

  async #onReaction(e: ReactionEvent): Promise<void> {
    const chat = await this.#chatReady();
    const threadId = await this.#threadOf(e.conversationId);
    await chat.processReaction({
      adapter: this,
      threadId,
      messageId: e.targetMessageId,
      emoji: defaultEmojiResolver.fromGChat(e.emoji),
      rawEmoji: e.emoji,
      added: e.action === 'add',
      user: this.#author(e.senderId),
      raw: e,
    });
  }

  async #onEdited(e: Edited): Promise<void> {
    const chat = await this.#chatReady();
    const threadId = await this.#threadOf(e.conversationId);
    const raw = {
      conversationId: e.conversationId,
      messageId: e.targetId,
      senderId: e.senderId,
      payload: e.payload,
    };
    const message = this.#message(threadId, raw, e.text ?? '', [], new Date(), true);
    await chat.processMessageUpdated({ adapter: this, threadId, message });
  }

  async #onDeleted(e: Deleted): Promise<void> {
    const chat = await this.#chatReady();
    const threadId = await this.#threadOf(e.conversationId);
    await chat.processMessageDeleted({
      adapter: this,
      threadId,
      channelId: threadId,
      messageId: e.targetId,
      raw: e,
    });
  }

  /** A human's stop aborts the Chat SDK's turn too (our streams are aborted by the Agent). */
  async #onStopped(e: Stopped): Promise<void> {
    const chat = await this.#chatReady();
    await chat.abortTurn(await this.#threadOf(e.conversationId));
  }

  #warn(what: string, err: unknown): void {
    this.#logger.warn(`ams: passing a ${what} to the Chat SDK failed`, { error: String(err) });
  }

  // ---- helpers

  #message(
    threadId: string,
    raw: AmsRawMessage,
    text: string,
    attachments: Attachment[],
    dateSent: Date,
    edited = false,
  ): Message<AmsRawMessage> {
    return new Message<AmsRawMessage>({
      id: raw.messageId,
      threadId,
      text,
      formatted: this.#converter.toAst(text),
      raw,
      author: this.#author(raw.senderId),
      metadata: { dateSent, edited },
      attachments,
    });
  }

  #author(senderId: string): Author {
    const isMe = senderId === this.agent.agentId;
    return { userId: senderId, userName: senderId, fullName: senderId, isBot: isMe ? true : 'unknown', isMe };
  }

  #attachment(file: FilePayload): Attachment {
    return {
      type: file.content_type.startsWith('image/')
        ? 'image'
        : file.content_type.startsWith('video/')
          ? 'video'
          : file.content_type.startsWith('audio/')
            ? 'audio'
            : 'file',
      name: file.name,
      mimeType: file.content_type,
      size: file.size,
      fetchData: async () => toBufferLike(await (await this.agent.files.download(file)).toBytes()),
    };
  }

  /**
   * Keeps a card's action map in the Chat SDK's state until its artifact expires: action ids and
   * values, labels as digests (see {@link storedCardOf}). Before `initialize()` there is no state:
   * the map is kept in memory only.
   */
  async #store(artifactId: string, card: SentCard): Promise<void> {
    const state = this.#chat?.getState();
    if (state === undefined) return;
    const ttlMs = Math.max(1, card.expiresAt - Date.now());
    await state.set(
      `${CARD_KEY}${artifactId}`,
      await storedCardOf(card.threadId, card.actions, card.expiresAt),
      ttlMs,
    );
  }

  /** A card's action map from the Chat SDK's state, if it is there and well formed. */
  async #stored(artifactId: string) {
    const value = await this.#chat?.getState().get(`${CARD_KEY}${artifactId}`);
    if (value === undefined || value === null) return undefined;
    if (!isStoredCard(value)) {
      this.#logger.warn(
        'ams: a card record in the state does not fit its shape; its answer is not passed on',
      );
      return undefined;
    }
    return value;
  }

  #remember(artifactId: string, card: SentCard): void {
    this.#cards.set(artifactId, card);
    if (this.#cards.size > MAX_CARDS) this.#cards.delete(this.#cards.keys().next().value!);
  }

  /** The thread of a conversation: a one-to-one conversation of the agent is a DM, anything else a group. */
  async #threadOf(conversationId: string): Promise<string> {
    let kind = this.#kinds.get(conversationId);
    if (kind === undefined) {
      await this.#refreshConversations();
      kind = this.#kinds.get(conversationId) ?? 'group';
      this.#kinds.set(conversationId, kind);
    }
    return encodeAmsThreadId({ conversationId, kind });
  }

  async #refreshConversations(): Promise<void> {
    for (const c of await this.agent.api.conversations()) {
      this.#kinds.set(c.conversation_id, 'dm');
      this.#dmByUser.set(c.user_id, c.conversation_id);
    }
  }
}

function buildAgent(config: AmsAdapterConfig): Agent {
  const baseUrl = config.baseUrl ?? process.env['AMS_BASE_URL'];
  const agentId = config.agentId ?? process.env['AMS_AGENT_ID'];
  const token = config.token ?? process.env['AMS_AGENT_TOKEN'];
  for (const [value, name] of [
    [baseUrl, 'baseUrl (or AMS_BASE_URL)'],
    [agentId, 'agentId (or AMS_AGENT_ID)'],
    [token, 'token (or AMS_AGENT_TOKEN)'],
  ] as const) {
    if (value === undefined || value === '') {
      throw new ValidationError({ message: `createAmsAdapter needs an agent, or ${name}` });
    }
  }
  return new Agent({ ...config.agentOptions, baseUrl: baseUrl!, agentId: agentId!, token: token! });
}

/**
 * Creates the Chat SDK adapter for agent-messaging-sdk.
 *
 * @throws {@link ValidationError} when no `agent` is given and `baseUrl`,
 * `agentId` or `token` (or `AMS_BASE_URL`, `AMS_AGENT_ID`, `AMS_AGENT_TOKEN`) is missing.
 * @example
 * ```ts
 * import { Chat } from 'chat';
 * import { createMemoryState } from '@chat-adapter/state-memory';
 * import { createAmsAdapter } from 'agent-messaging-sdk/chat';
 *
 * const bot = new Chat({ userName: 'helper', adapters: { ams: createAmsAdapter({ agent }) }, state: createMemoryState() });
 * bot.onDirectMessage(async (thread, message) => { await thread.post(`echo: ${message.text}`); });
 * await bot.initialize();
 * ```
 */
export function createAmsAdapter(config?: AmsAdapterConfig): AmsAdapter {
  return new AmsAdapter(config);
}
