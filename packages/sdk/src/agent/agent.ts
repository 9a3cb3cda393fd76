/**
 * The `Agent` facade: what an agent author touches.
 *
 * ```ts
 * const agent = new Agent({ baseUrl, agentId, token, keyStore: new FileKeyStore({ directory: './keys' }) });
 * agent.on('message.new', (msg) => msg.reply(`You said: ${msg.text}`));
 * agent.on('error', (err) => console.error(err.code));
 * await agent.connect();
 * ```
 *
 * One event pipeline serves both transports (see `pipeline/pipeline.ts`);
 * this class wires it to the key store and key lifecycle, the REST API, the
 * WebSocket dispatcher or the webhook receiver, and the listeners.
 *
 * @module
 */
import { QuoteCache } from '../messaging/quote-cache.js';
import { resolveAction } from '../messaging/message-actions.js';
import {
  deletePayload,
  editPayload,
  receiptPayload,
  type MessageAction,
} from '../core/protocol/message-actions.js';
import { FileTransfer } from '../files/file-transfer.js';
import type { AmsError } from '../core/errors/base.js';
import { isTerminalCode } from '../core/errors/codes.js';
import { isAmsError } from '../core/errors/guards.js';
import { ConfigurationError } from '../core/errors/configuration-error.js';
import { TransportError } from '../core/errors/transport-error.js';
import { isAgentToken } from '../core/protocol/agent-token.js';
import { isWsOnlyEventType } from '../core/protocol/event-types.js';
import { SCALE_FRAMES } from '../core/protocol/service-names.js';

/** Notifications raised from WebSocket control frames only (docs/agent.md). */
const WS_ONLY_NOTIFICATIONS: ReadonlySet<string> = new Set(['sessionInvalidated', 'authExpiring']);
import type { MessagePayload } from '../core/protocol/payloads.js';
import type { KeyRing } from '../crypto/key-store/key-ring.js';
import type { FatalInfo } from '../transport/ws/events.js';
import type { WsDispatcher } from '../transport/ws/dispatcher.js';
import type { AgentApi } from './api.js';
import type { TypedEmitter } from './emitter.js';
import type {
  AgentListenerArgs,
  AgentListenerEvent,
  AnyAgentEvent,
  CloseResult,
  SendResult,
} from './events.js';
import {
  resolveAgentOptions,
  type AgentMode,
  type AgentOptions,
  type AgentWebhookOptions,
  type ResolvedAgentOptions,
} from './options.js';
import { safetyNumber } from '../crypto/safety-number.js';
import { discloseContentKey } from '../crypto/forward-proof.js';
import { autoRecover, buildAgentParts, loadKeys, type AgentParts } from './parts.js';
import type { EventPipeline } from './pipeline/pipeline.js';
import type { FlowControl } from './pipeline/flow-control.js';
import type { AgentStats } from './pipeline/types.js';
import { createAgentWebhook, type AgentWebhook } from './webhook.js';
import { createWebSocketSide } from './websocket.js';
import { defaultShutdownHost, registerShutdown, type ShutdownHost } from './shutdown.js';
import { reportFatal } from './fatal-report.js';
import { Composer, runComposer, type HearsTrigger, type MiddlewareLike } from './composer.js';
import { createContext, type CommandContext, type Context, type HearsContext } from './context.js';
import type { SendOptions } from '../messaging/sender.js';
import { AgentArtifacts } from './artifacts.js';
import {
  RelayActions,
  type ForwardedCopy,
  type ForwardSource,
  type ReactionResult,
  type ReactOptions,
} from '../messaging/relay-actions.js';
import { createAgentCapabilities } from './capabilities/create.js';
import { createDecisionVetter, type DecisionVetter } from './decisions.js';
import type { AgentManifest } from './capabilities/manifest.js';
import type { AgentGrants } from './capabilities/grants.js';
import { createAgentStreams } from './streams/agent-wiring.js';
import type { AgentStreams } from './streams/agent-streams.js';
import type { StreamSummary, StreamWriter, StreamWriterOptions } from './streams/writer.js';
import { Groups } from '../messaging/groups.js';
import { handleStop } from './turns/stop.js';
import { checkStrategy, type TurnStrategy } from './turns/strategy.js';
import type { IncomingMessage } from './events.js';
import { holdWhileOpen, resolveStatusOptions, StatusBeacon } from './presence.js';
import { errorTypeOf } from '../core/errors/error-type.js';
import { observeOperation, type AgentObserver, type ObservedStreamEnd } from './observer.js';

/** Where the agent is in its life. */
export type AgentState = 'idle' | 'connecting' | 'running' | 'closing' | 'closed' | 'fatal';

/** Options of {@link Agent.close}. */
export interface AgentCloseOptions {
  /** How long to wait for running handlers, ms. @defaultValue the `closeTimeoutMs` option (10 000) */
  timeoutMs?: number;
}

/** A listener of the Agent's event `E`. */
export type AgentListener<E extends AgentListenerEvent> = (...args: AgentListenerArgs[E]) => unknown;

/**
 * An agent on the messaging service: typed event handlers over WebSocket or
 * webhook, de-duplicated, decrypted, ordered per conversation.
 *
 * @example
 * ```ts
 * const agent = new Agent({ baseUrl: 'https://api.example.com', agentId, token, keyStore });
 * agent.on('message.new', async (msg) => { await msg.reply({ type: 'text', text: `echo: ${msg.text}` }); });
 * agent.on('decryptFailure', (f) => console.warn('undecryptable message', f.reason));
 * agent.on('fatal', (err) => console.error('stopped for good', err.code));
 * await agent.connect();
 * process.on('SIGTERM', () => void agent.close({ timeoutMs: 5000 }));
 * ```
 */
export class Agent {
  /** This agent's id. */
  readonly agentId: string;
  /** `websocket` or `webhook`. */
  readonly mode: AgentMode;
  /** The agent's REST calls (delivery logs, governance, conversations …). */
  readonly api: AgentApi;
  /** Artifacts: send one, update it, await its answer (docs/artifacts.md). */
  readonly artifacts: AgentArtifacts;
  readonly #relay: RelayActions;
  /** The capability manifest: propose changes, await the owner's decision (docs/manifests.md). */
  readonly manifest: AgentManifest;
  /** Data grants: request, await the decision, read (docs/grants.md). */
  readonly grants: AgentGrants;
  /** Groups: join by invite code, leave, members, key rotation (docs/groups.md). */
  readonly groups: Groups;
  /** Encrypted files: `upload(conversationId, source)` and `download(filePayload)` (docs/files.md). */
  readonly files: FileTransfer<SendResult>;
  readonly #o: ResolvedAgentOptions;
  readonly #emitter: TypedEmitter<AgentListenerArgs>;
  readonly #pipeline: EventPipeline;
  readonly #vet: DecisionVetter;
  readonly #parts: AgentParts;
  readonly #warned = new Set<string>();
  #token: string;
  #state: AgentState = 'idle';
  /** The code of the error that stopped the agent for good (`fatal`), if any. */
  #fatalCode: string | undefined;
  #ring: KeyRing | undefined;
  #keys: Promise<KeyRing> | undefined;
  #connecting: Promise<void> | undefined;
  #closing: Promise<CloseResult> | undefined;
  #ws: WsDispatcher | undefined;
  #flow: FlowControl | undefined;
  #webhook: AgentWebhook | undefined;
  #unregisterShutdown: (() => void) | undefined;
  #composer: Composer | undefined;
  readonly #host: ShutdownHost | undefined;
  readonly #streams: AgentStreams;
  readonly #status: StatusBeacon;
  readonly #quotes = new QuoteCache();

  /** @throws {@link ConfigurationError} naming the first bad option. */
  constructor(options: AgentOptions) {
    const o = resolveAgentOptions(options);
    this.#o = o;
    this.agentId = o.agentId;
    this.mode = o.mode;
    this.#token = o.token;
    this.#parts = buildAgentParts(o, {
      token: () => this.#token,
      ring: () => this.#ring ?? this.#ensureKeys(),
      currentRing: () => this.#currentRing(),
      send: (conversationId, payload, options) => this.send(conversationId, payload, options),
      stream: (conversationId, options) => this.stream(conversationId, options),
      vet: (event, opened) => this.#vet(event, opened),
      onStop: (message, stop) =>
        handleStop(message, stop, {
          registry: this.#parts.turns,
          logger: o.logger,
          peerKind: async (id) => (await this.#parts.directory.keys(id)).kind,
          send: (conversationId, payload) => this.send(conversationId, payload as MessagePayload),
          emit: (event) => this.#emitter.emit('turnStopped', event),
        }),
      quotes: this.#quotes,
      onAction: (message, action) => this.#onAction(message, action),
      turnStarted: (event) =>
        event.type === 'message.new' ? this.#status.beginTurn(event.conversationId) : undefined,
      chain: (event) => this.#runChain(event),
    });
    this.api = this.#parts.api;
    this.files = new FileTransfer({
      rest: () => this.api.rest,
      send: (c, p) => this.send(c, p),
      observe: (conversationId, run) =>
        this.#pipeline.observers.length === 0
          ? run()
          : observeOperation(this.#pipeline.observers, { operation: 'upload', conversationId }, run),
    });
    this.#emitter = this.#parts.emitter;
    this.#pipeline = this.#parts.pipeline;
    ({ manifest: this.manifest, grants: this.grants } = createAgentCapabilities(o, this.#parts));
    this.groups = new Groups({ rest: this.api.rest, directory: this.#parts.directory });
    // Registered first, so handlers of these events already seal for the new members.
    for (const type of ['group.updated', 'system.group_key_rotated'] as const) {
      this.#emitter.on(type, (e) => this.groups.observe(e.type, e.conversationId));
    }
    this.#host = defaultShutdownHost();
    const sender = async () => (await this.#ensureKeys(), this.#parts.sender);
    this.#status = new StatusBeacon({
      options: resolveStatusOptions(o.source.status),
      clock: o.clock,
      logger: o.logger,
      rest: () => this.api.rest,
      sender,
    });
    this.#relay = new RelayActions({
      rest: () => this.api.rest,
      sender,
      discloseKey: async (wire) =>
        discloseContentKey(wire, {
          recipientId: o.agentId,
          keys: (await this.#ensureKeys()).candidates(o.clock.now()),
        }),
    });
    const directory = this.#parts.directory;
    const peerKind = async (id: string): Promise<string | undefined> => {
      try {
        return (await directory.keys(id)).kind;
      } catch {
        return undefined;
      }
    };
    this.artifacts = new AgentArtifacts({
      agentId: o.agentId,
      peerKind,
      members: (conversationId) => directory.conversationMembers(conversationId),
      rest: () => this.api.rest,
      sender,
      emitter: this.#emitter,
      relay: this.#relay,
      clock: o.clock,
      logger: o.logger,
    });
    let owner: Promise<string | undefined> | undefined;
    const ownerId = (): Promise<string | undefined> => {
      if (o.source.ownerId !== undefined) return Promise.resolve(o.source.ownerId);
      // Read once (trusted on first use); a failed read is asked again next time.
      owner ??= this.api.getSelf().then(
        (self) => self.view.owner_id,
        (err: unknown) => {
          owner = undefined;
          throw err;
        },
      );
      return owner;
    };
    this.#vet = createDecisionVetter({
      agentId: o.agentId,
      clock: o.clock,
      keys: (id) => directory.keys(id),
      members: (conversationId) => directory.conversationMembers(conversationId),
      ownerId,
      asked: (grantId) => this.grants.asked(grantId),
      proposed: (version) => this.manifest.proposedDigest(version),
      artifacts: this.artifacts,
      backend: o.source.backend,
    });
    this.#streams = createAgentStreams(
      o,
      this.#parts.directory,
      {
        token: () => this.#token,
        ring: () => this.#ensureKeys(),
        socket: () => this.#ws,
      },
      this.#parts.members,
    );
  }

  /** Where the agent is in its life. */
  get state(): AgentState {
    return this.#state;
  }

  /**
   * Adds a listener: a handler for an event type (`message.new`, `relation.revoked` …,
   * awaited, in order within a conversation), `event` (every event), or a
   * notification (`error`, `fatal`, `decryptFailure`, `connected` …).
   * In webhook mode, a listener for a WebSocket-only event logs a warning once.
   */
  on<E extends AgentListenerEvent>(event: E, listener: AgentListener<E>): this {
    this.#warnIfWsOnly(event);
    this.#emitter.on(event, listener);
    return this;
  }

  /** Adds a listener called at most once. */
  once<E extends AgentListenerEvent>(event: E, listener: AgentListener<E>): this {
    this.#warnIfWsOnly(event);
    this.#emitter.once(event, listener);
    return this;
  }

  /** Removes a listener. */
  off<E extends AgentListenerEvent>(event: E, listener: AgentListener<E>): this {
    this.#emitter.off(event, listener);
    return this;
  }

  /**
   * Appends middleware `(ctx, next) => …` (or a {@link Composer}) to the
   * agent's chain, which runs for every event after its `agent.on(type)`
   * handlers; call `await next()` to pass the event on. Errors go to `error`
   * as `HANDLER_FAILED`. See docs/agent.md, "Middleware".
   */
  use(...middleware: MiddlewareLike[]): this {
    this.#chain().use(...middleware);
    return this;
  }

  /** Runs `middleware` for a text message `/name args` (`ctx.command` holds name and args). */
  command(name: string | readonly string[], ...middleware: MiddlewareLike<CommandContext>[]): this {
    this.#chain().command(name, ...middleware);
    return this;
  }

  /** Runs `middleware` for a text message matching a RegExp or equal to a string (`ctx.match`). */
  hears(
    trigger: HearsTrigger | readonly HearsTrigger[],
    ...middleware: MiddlewareLike<HearsContext>[]
  ): this {
    this.#chain().hears(trigger, ...middleware);
    return this;
  }

  /** Runs `middleware` when `predicate` holds; a type guard (e.g. `isMessage`) narrows `ctx`. */
  filter<D extends Context>(predicate: (ctx: Context) => ctx is D, ...middleware: MiddlewareLike<D>[]): this;
  /** Runs `middleware` when `predicate` holds. */
  filter(predicate: (ctx: Context) => boolean | Promise<boolean>, ...middleware: MiddlewareLike[]): this;
  filter(predicate: (ctx: Context) => boolean | Promise<boolean>, ...middleware: MiddlewareLike[]): this {
    this.#chain().filter(predicate, ...middleware);
    return this;
  }

  /**
   * Starts the agent: loads or creates its keys and registers them
   * (`AGENT_KEYS_MISMATCH` heals itself), recovers an `unreachable` agent
   * (`autoRecover`), and in WebSocket mode connects. In webhook mode call it
   * once your HTTP server listens (recovery flushes pending deliveries to it).
   *
   * @throws {@link ServiceError} `AGENT_TOKEN_INVALID`, `AGENT_SUSPENDED`, `AGENT_BANNED` …
   * (also emitted as `fatal`), {@link CryptoError} from the key store, a transport error.
   */
  connect(): Promise<void> {
    if (this.#state === 'closing' || this.#state === 'closed') {
      return Promise.reject(new ConfigurationError({ option: 'state', message: 'The agent was closed.' }));
    }
    this.#watchSignals();
    this.#connecting ??= this.#start().catch((error: unknown) => {
      this.#connecting = undefined;
      if (isAmsError(error) && isTerminalCode(error.code)) this.#fatal(error, undefined);
      else {
        if (this.#state === 'connecting') this.#state = 'idle';
        // One line that says why; the stack only at debug level (issue #28).
        this.#o.logger.error(`the agent could not connect: ${reasonOf(error)}`, {
          ...(isAmsError(error) ? { code: error.code } : {}),
        });
      }
      this.#o.logger.debug('connect() failed', { stack: (error as Error | undefined)?.stack });
      throw error;
    });
    // Also reported as `fatal` / `error`: an unawaited connect() must not become an unhandled rejection.
    this.#connecting.catch(() => undefined);
    return this.#connecting;
  }

  /**
   * Seals `payload` to the conversation's members and sends it (a string is
   * `{ type: 'text', text }`).
   *
   * @throws {@link ServiceError} `RELATION_REVOKED`, `CONVERSATION_FORBIDDEN`, `AGENT_RESTRICTED`;
   * {@link RateLimitError} `MESSAGE_RATE_LIMITED` once the client-side limiter and retries are spent;
   * the signal's reason when `options.signal` aborts first.
   * @example
   * ```ts
   * await agent.send(conversationId, 'build finished', { signal: AbortSignal.timeout(10_000) });
   * ```
   */
  async send(
    conversationId: string,
    payload: MessagePayload | string,
    options: SendOptions = {},
  ): Promise<SendResult> {
    await this.#ensureKeys();
    const body = typeof payload === 'string' ? { type: 'text', text: payload } : payload;
    const observers = this.#pipeline.observers;
    const sent =
      observers.length === 0
        ? await this.#parts.sender.send(conversationId, body, options)
        : await observeOperation(observers, { operation: 'send', conversationId }, () =>
            this.#parts.sender.send(conversationId, body, options),
          );
    this.#quotes.remember(conversationId, sent.messageId, this.agentId, body);
    // Receivers clear the agent's status when its message arrives: so does the beacon.
    this.#status.replied(conversationId);
    return sent;
  }

  /**
   * Edits one of the agent's own messages: sends a sealed, signed
   * `message.edit` naming it, with the new payload (a string is
   * `{ type: 'text', text }`). Receivers emit `messageEdited`, and accept it
   * only from the sender of the original message (docs/agent.md, "Edits,
   * deletes and read receipts").
   *
   * @throws what {@link Agent.send} throws; {@link ValidationError} when `messageId` is not an id.
   * @example
   * ```ts
   * const sent = await agent.send(conversationId, 'the build is runing');
   * await agent.edit(conversationId, sent.messageId, 'the build is running');
   * ```
   */
  async edit(
    conversationId: string,
    messageId: string,
    payload: MessagePayload | string,
    options: SendOptions = {},
  ): Promise<SendResult> {
    const body = typeof payload === 'string' ? { type: 'text', text: payload } : payload;
    const sent = await this.#sendAction(conversationId, editPayload(messageId, body), options);
    this.#quotes.apply(conversationId, messageId, body);
    return sent;
  }

  /**
   * Deletes one of the agent's own messages: sends a sealed, signed
   * `message.delete` naming it; receivers emit `messageDeleted` (only from
   * the original sender). The service keeps the original ciphertext until
   * it expires; receivers hide it.
   *
   * @throws what {@link Agent.send} throws; {@link ValidationError} when `messageId` is not an id.
   */
  async delete(conversationId: string, messageId: string, options: SendOptions = {}): Promise<SendResult> {
    const sent = await this.#sendAction(conversationId, deletePayload(messageId), options);
    this.#quotes.apply(conversationId, messageId, undefined);
    return sent;
  }

  /**
   * Tells the conversation's members that the agent read `messageIds`
   * (a sealed `receipt`, at most 100 ids). Only with the `readReceipts`
   * option: without it nothing is sent and it resolves `undefined`.
   *
   * @throws what {@link Agent.send} throws; {@link ValidationError} for no ids, more than 100, or a bad id.
   */
  async markRead(
    conversationId: string,
    messageIds: readonly string[],
    options: SendOptions = {},
  ): Promise<SendResult | undefined> {
    const payload = receiptPayload(messageIds);
    if (this.#o.source.readReceipts !== true) return undefined;
    return this.#sendAction(conversationId, payload, options);
  }

  /** Sends an action payload (not a reply: the status stays). */
  async #sendAction(
    conversationId: string,
    payload: Readonly<Record<string, unknown>>,
    options: SendOptions,
  ): Promise<SendResult> {
    await this.#ensureKeys();
    return this.#parts.sender.send(conversationId, payload as MessagePayload, options);
  }

  /** A received edit, delete or receipt, judged and emitted. */
  #onAction(message: IncomingMessage, action: MessageAction | 'invalid'): void {
    const where = { conversationId: message.conversationId, senderId: message.senderId };
    if (action === 'invalid') {
      this.#o.logger.warn('dropped a message action that does not parse', where);
      return;
    }
    const outcome = resolveAction(this.#quotes, message, action, this.#o.source.readReceipts === true);
    if (outcome.kind === 'edited') this.#emitter.emit('messageEdited', outcome.event);
    else if (outcome.kind === 'deleted') this.#emitter.emit('messageDeleted', outcome.event);
    else if (outcome.kind === 'read') this.#emitter.emit('messageRead', outcome.event);
    else if (outcome.why === 'not_the_sender')
      this.#o.logger.warn('refused an edit or delete of a message sent by someone else', where);
  }

  /**
   * Shows a status to the conversation's humans ("searching the web…"),
   * sealed end to end: the service relays it without reading it and stores
   * nothing. `''` shows a plain "working" indicator, `null` clears it.
   * Inside a `message.new` handler of that conversation it is kept alive
   * until the handler ends or replies; outside one, receivers drop it after
   * its TTL (`status.ttlMs`). Posts are coalesced to one per second per
   * conversation (the latest state wins), so a chatty loop cannot exceed the
   * service's limit. Over REST in both modes. See docs/agent.md, "Status".
   *
   * @throws {@link ValidationError} for a text above 200 characters; {@link RateLimitError}
   * `RATE_LIMITED` when the service refused the post; {@link ServiceError} `RELATION_REVOKED` ….
   * @example
   * ```ts
   * agent.on('message.new', async (msg) => {
   *   await agent.status(msg.conversationId, 'searching the web…');
   *   await msg.reply(await search(msg.text ?? ''));
   * });
   * ```
   */
  async status(conversationId: string, text: string | null): Promise<void> {
    await this.#ensureKeys();
    return this.#status.set(conversationId, text);
  }

  /**
   * Forwards an opened message (e.g. a `message.new` event) to up to 10
   * conversations of the agent, re-sealed for each (docs/artifacts.md).
   *
   * @throws {@link ServiceError} `FORWARD_TARGET_LIMIT` (checked before sending too),
   * `ARTIFACT_NOT_FORWARDABLE`, `MESSAGE_NOT_FOUND`, `CONVERSATION_FORBIDDEN`.
   */
  forward(source: ForwardSource, targets: readonly string[]): Promise<ForwardedCopy[]> {
    return this.#relay.forward(source, targets);
  }

  /**
   * Reacts to a message with an emoji (sealed; the human gets it over WebSocket),
   * or withdraws the reaction with `{ remove: true }`.
   *
   * @throws {@link ValidationError} for something that is not an emoji; {@link ServiceError} `MESSAGE_NOT_FOUND`.
   */
  react(
    conversationId: string,
    messageId: string,
    emoji: string,
    options?: ReactOptions,
  ): Promise<ReactionResult> {
    return this.#relay.react(conversationId, messageId, emoji, options);
  }

  /**
   * Opens a streamed reply into `conversationId` (docs/streaming.md): the
   * stream key is sealed to the members (through the member watch, like
   * `send()`), then `write()` sends encrypted deltas signed in batches
   * (coalesced, with back-pressure), `end()` signs the transcript.
   * Over the WebSocket in WebSocket mode, over REST in webhook mode. Never retried.
   *
   * @throws {@link StreamError} `client_offline`, `peer_revoked`, `rate_limited` when the service refuses the start;
   * CryptoError `MEMBERS_CHANGED` under `keyChangePolicy: 'block'` when the conversation gained a member.
   * @example
   * ```ts
   * const w = await agent.stream(conversationId);
   * for await (const token of llm.stream(prompt)) await w.write(token);
   * await w.end();
   * ```
   */
  stream(conversationId: string, options?: StreamWriterOptions): Promise<StreamWriter> {
    // A stream opened while a turn runs in the conversation is aborted with it (stop, supersede, shutdown).
    return this.#openStream(conversationId, options).then((writer) => {
      this.#parts.turns.track(conversationId, writer);
      // The turn's status lasts as long as the stream, even past the handler that opened it.
      holdWhileOpen(writer, this.#status.hold(conversationId));
      return writer;
    });
  }

  /** Opens a stream under the observers: the `stream` operation lasts until the stream is over. */
  #openStream(conversationId: string, options?: StreamWriterOptions): Promise<StreamWriter> {
    const observers = this.#pipeline.observers;
    if (observers.length === 0) return this.#streams.open(conversationId, options);
    let ended!: (end: ObservedStreamEnd) => void;
    const streamEnd = new Promise<ObservedStreamEnd>((resolve) => (ended = resolve));
    return observeOperation(observers, { operation: 'stream', conversationId, streamEnd }, () =>
      this.#streams.open(conversationId, options, ended),
    ).catch((error: unknown) => {
      ended({ outcome: 'failed', streamId: undefined, deltas: 0, parts: 0, errorType: errorTypeOf(error) });
      throw error;
    });
  }

  /**
   * Registers an observer of what the agent does: each delivery's steps
   * (received → opened → handled → acknowledged) and its outbound operations
   * (send, stream, upload), as ids and types, never content. The
   * `agent-messaging-sdk/otel` entry turns them into OpenTelemetry spans and
   * metrics, and exports the observer types (docs/observability.md).
   * Returns a function that removes it.
   *
   * @example
   * ```ts
   * const stop = agent.observe({ delivery: (d) => (console.log(d.eventType, d.deliveryId), undefined) });
   * ```
   */
  observe(observer: AgentObserver): () => void {
    const observers = this.#pipeline.observers;
    observers.push(observer);
    return () => {
      const at = observers.indexOf(observer);
      if (at >= 0) observers.splice(at, 1);
    };
  }

  /**
   * Sets how the messages of one conversation become turns (`serial`,
   * `debounce`, `latest`, `concurrent`; docs/agent.md, "Turns"), overriding
   * the `turns` option; `undefined` goes back to it. Applies to messages
   * taken from now on.
   *
   * @throws {@link ConfigurationError} for an unknown strategy.
   */
  setTurnStrategy(conversationId: string, strategy: TurnStrategy | undefined): this {
    this.#pipeline.turns.setStrategy(
      conversationId,
      strategy === undefined ? undefined : checkStrategy(strategy, 'strategy'),
    );
    return this;
  }

  /**
   * The turn a message belongs to while its handlers run: its `signal`
   * (what `ctx.signal` is, for `agent.on('message.new')` handlers) and its
   * `messages`. Undefined once the turn ended, or for another event.
   */
  turnOf(
    message: IncomingMessage,
  ): { readonly signal: AbortSignal; readonly messages: readonly IncomingMessage[] } | undefined {
    return this.#parts.turns.turnOf(message);
  }

  /**
   * Streams every chunk of `source` (e.g. an LLM SDK's token stream) into
   * `conversationId` and ends the stream; the source's error aborts it.
   *
   * @throws what {@link Agent.stream} and {@link StreamWriter.write} throw.
   */
  streamFrom(
    conversationId: string,
    source: AsyncIterable<string> | Iterable<string>,
    options?: StreamWriterOptions,
  ): Promise<StreamSummary> {
    const release = this.#status.hold(conversationId);
    return this.#streams
      .pipe(conversationId, source, options, (c, o) => this.#openStream(c, o))
      .finally(release);
  }

  /**
   * Accepts the key change refused for `peerId` under `keyChangePolicy: 'block'`
   * (after the safety numbers were compared out of band). False when none was waiting.
   */
  confirmKey(peerId: string): Promise<boolean> {
    return this.#parts.pins.confirmKey(peerId);
  }

  /** Accepts the new members refused for a conversation under `'block'`. False when none were waiting. */
  confirmMembers(conversationId: string): boolean {
    return this.#parts.members.confirmMembers(conversationId);
  }

  /**
   * The safety number of this agent and `peerId` (60 digits in 12 groups of 5),
   * to compare with the one the peer's app shows. It covers every key a sender
   * wraps to: each side's current keys and its retired generations in grace
   * (this agent's from its ring, the peer's as vouched for by its statements).
   *
   * @throws {@link CryptoError} `KEY_CHANGED` under `'block'` while a change waits for `confirmKey`.
   */
  async safetyNumber(peerId: string): Promise<string> {
    const ring = await this.#ensureKeys();
    const peer = await this.#parts.directory.keys(peerId);
    const own = ring.current.keys;
    const now = this.#o.clock.now();
    return safetyNumber(
      {
        id: this.agentId,
        signing: own.signing.publicKey,
        encryption: own.encryption.publicKey,
        retired: ring.retired.filter((r) => r.notAfter > now).map((r) => r.encryption.publicKey),
      },
      {
        id: peerId,
        signing: peer.signing,
        encryption: peer.encryption,
        retired: peer.retired.map((r) => r.encryption),
      },
    );
  }

  /**
   * Webhook mode: the receiver and its framework adapters, running the same
   * pipeline. Options default to the constructor's `webhook` option.
   *
   * @throws {@link ConfigurationError} in WebSocket mode, or without a secret.
   */
  webhook(options?: AgentWebhookOptions): AgentWebhook {
    if (this.mode !== 'webhook') {
      throw new ConfigurationError({ option: 'mode', message: 'agent.webhook() needs mode: "webhook".' });
    }
    if (this.#webhook !== undefined && options === undefined) return this.#webhook;
    const given = options ?? this.#o.source.webhook;
    if (given === undefined) {
      throw new ConfigurationError({
        option: 'webhook',
        message: 'Pass the webhook secret: agent.webhook({ secret }).',
      });
    }
    this.#webhook = createAgentWebhook({
      options: this.#o,
      webhook: given,
      pipeline: this.#pipeline,
      closing: () => this.#state === 'closing' || this.#state === 'closed',
    });
    return this.#webhook;
  }

  /** Shortcut: `agent.webhook().nodeHandler()` for `http.createServer`. */
  webhookHandler(): ReturnType<AgentWebhook['nodeHandler']> {
    return this.webhook().nodeHandler();
  }

  /** Shortcut: `agent.webhook().fetchHandler()` for fetch-style runtimes. */
  fetchHandler(): ReturnType<AgentWebhook['fetchHandler']> {
    return this.webhook().fetchHandler();
  }

  /**
   * Moves the agent onto a regenerated token: REST calls and later
   * WebSocket connections use it, an open WebSocket is renewed in place
   * (`auth.renew`), and the key lifecycle rotates to a new key pair (the old
   * one keeps opening messages until the service's grace ends). An agent
   * that stopped for good because its token became invalid (an emergency
   * regeneration, a revoked token: `fatal` with `AGENT_TOKEN_INVALID`) starts
   * again with the new token: keys, then a new connection; resolves once
   * connected. An agent stopped for another reason (suspended, banned) stays
   * stopped.
   *
   * @throws {@link ConfigurationError} for a malformed token; errors of the key lifecycle and of
   *   connecting again.
   */
  async renewToken(token: string): Promise<void> {
    if (!isAgentToken(token)) {
      throw new ConfigurationError({
        option: 'token',
        message: 'renewToken() needs an agent token (hsk_…).',
      });
    }
    this.#token = token;
    if (this.#state === 'fatal' && this.#fatalCode === 'AGENT_TOKEN_INVALID') {
      // The stopped dispatcher is not reused: a new one connects with the new token.
      const stopped = this.#ws;
      [this.#ws, this.#flow, this.#connecting, this.#keys] = [undefined, undefined, undefined, undefined];
      this.#fatalCode = undefined;
      this.#state = 'idle';
      await stopped?.close();
      await this.connect();
      return;
    }
    if (this.#ws?.state === 'open') {
      try {
        this.#ws.renew(token);
      } catch {
        // Not open after all: the next connection uses the new token.
      }
    }
    this.#keys = undefined;
    await this.#ensureKeys();
  }

  /**
   * Counters: received, handled, duplicates, decrypt failures (by reason), handler errors …,
   * and WebSocket flow control (`paused`, `pauses`, `inFlight`, `inFlightBytes`).
   */
  stats(): AgentStats {
    return this.#pipeline.stats(this.#flow?.stats());
  }

  /**
   * Stops taking events (webhook requests get 503; WebSocket events that
   * arrive are left unacknowledged, or, on a service without acks, the
   * WebSocket closes first), lets running handlers finish within
   * `timeoutMs`, sends their acks, closes the WebSocket, then resolves.
   * Events not started by then are abandoned (not acknowledged; a webhook
   * delivery is answered 500), so the service delivers them again. Idempotent.
   */
  close(options: AgentCloseOptions = {}): Promise<CloseResult> {
    this.#closing ??= this.#close(options.timeoutMs ?? this.#o.closeTimeoutMs);
    return this.#closing;
  }

  /**
   * Takes this copy out of service for a deploy or a scale-down (what
   * SIGTERM does): tells the service to route no new work to this socket
   * (its idle conversations move to the sibling copies at once), lets
   * running handlers finish within `timeoutMs`, acknowledges them, and
   * closes. What was not finished is not acknowledged, so the service gives
   * it to a sibling (or to the next connection). The same as
   * {@link Agent.close}, named for orchestrators (docs/production.md).
   *
   * @example
   * ```ts
   * process.once('SIGTERM', () => void agent.drain({ timeoutMs: 20_000 }).then(() => process.exit(0)));
   * ```
   */
  drain(options: AgentCloseOptions = {}): Promise<CloseResult> {
    return this.close(options);
  }

  /**
   * Liveness and readiness for orchestrators (Kubernetes probes, load
   * balancers): `live` is false once the agent stopped for good (`fatal`) or
   * closed, so the orchestrator restarts the copy; `ready` is true while the
   * copy takes events (WebSocket open, or webhook mode started) and turns
   * false as soon as it drains. `state` is the lifecycle state. See
   * docs/production.md for a probe server.
   */
  health(): { readonly live: boolean; readonly ready: boolean; readonly state: AgentState } {
    const state = this.#state;
    const live = state !== 'fatal' && state !== 'closed';
    const taking =
      state === 'running' &&
      (this.mode === 'webhook' || (this.#ws !== undefined && this.#ws.state === 'open'));
    return { live, ready: live && taking, state };
  }

  async #start(): Promise<void> {
    this.#state = 'connecting';
    await this.#ensureKeys();
    if (this.#o.autoRecover) await autoRecover(this.#o, this.#parts);
    // close() may have come while the keys loaded: never open a socket after it.
    if (this.#state !== 'connecting') {
      throw new TransportError({
        code: 'TRANSPORT_CLOSED',
        message: 'The agent was closed while connecting.',
      });
    }
    if (this.mode === 'websocket') {
      const side = this.#ws
        ? undefined
        : createWebSocketSide({
            options: this.#o,
            pipeline: this.#pipeline,
            emitter: this.#emitter,
            logger: this.#o.logger,
            token: () => this.#token,
            closing: () => this.#state === 'closing' || this.#state === 'closed',
            onFatal: (error, info) => this.#fatal(error, info),
            streams: {
              receive: (f) => this.#streams.receive(f),
              socketClosed: () => this.#streams.router.socketClosed(),
            },
          });
      if (side !== undefined) [this.#ws, this.#flow] = [side.dispatcher, side.flow];
      await this.#ws?.start();
    }
    if (this.#state === 'connecting') this.#state = 'running';
  }

  #ensureKeys(): Promise<KeyRing> {
    this.#keys ??= loadKeys(this.#o, this.#parts).then(
      (ring) => (this.#ring = ring),
      (error: unknown) => {
        this.#keys = undefined;
        throw error;
      },
    );
    return this.#keys;
  }

  #currentRing(): KeyRing {
    if (this.#ring === undefined)
      throw new ConfigurationError({ option: 'keys', message: 'Keys are not loaded yet.' });
    return this.#ring.prune(this.#o.clock.now());
  }

  #fatal(error: AmsError, info: FatalInfo | undefined): void {
    if (this.#state === 'fatal' || this.#state === 'closed') return;
    this.#state = 'fatal';
    this.#fatalCode = error.code;
    this.#unwatchSignals();
    const listened = this.#emitter.listenerCount('fatal') > 0;
    reportFatal({ error, info, logger: this.#o.logger, listened, host: this.#host });
    this.#emitter.emit('fatal', error, info);
  }

  /** The agent's composer, made on first use. */
  #chain(): Composer {
    this.#composer ??= new Composer();
    return this.#composer;
  }

  /**
   * Runs the middleware chain for `event` (before the `agent.on(type)`
   * handlers); `true` when it passed the event on, so those handlers run.
   */
  #runChain(event: AnyAgentEvent): Promise<boolean> {
    const composer = this.#composer;
    if (composer === undefined) return Promise.resolve(true);
    const deps = {
      agentId: this.agentId,
      files: this.files,
      send: (conversationId: string, payload: MessagePayload | string, options?: SendOptions) =>
        this.send(conversationId, payload, options),
      stream: (conversationId: string, options?: StreamWriterOptions) => this.stream(conversationId, options),
      turnOf: (event: object) => this.#parts.turns.turnOf(event),
      signal: this.#parts.turns.shutdown,
      status: (conversationId: string, text: string | null) => this.status(conversationId, text),
    };
    return runComposer(composer, createContext(event, deps));
  }

  #watchSignals(): void {
    const s = this.#o.shutdownSignals;
    if (s === false || this.#host === undefined || this.#unregisterShutdown !== undefined) return;
    this.#unregisterShutdown = registerShutdown(this.#host, {
      close: () => this.close({ timeoutMs: s.timeoutMs }),
      exit: s.exit,
      timeoutMs: s.timeoutMs,
      signals: s.signals,
      logger: this.#o.logger,
    });
  }

  #unwatchSignals(): void {
    this.#unregisterShutdown?.();
  }

  async #close(timeoutMs: number): Promise<CloseResult> {
    this.#state = 'closing';
    // No new work for this socket: the service gives it (and idle conversations) to siblings.
    this.#ws?.sendFrame(JSON.stringify({ type: SCALE_FRAMES.drain }));
    // With acks the socket stays open while handlers finish, so their acks reach the service
    // (new events are left unacknowledged: the service keeps them). Without acks, every
    // event written to the socket counts as delivered, so it closes first.
    const keepOpen = this.#ws?.acks === true;
    if (!keepOpen) await this.#ws?.close();
    const result = await this.#pipeline.drain(timeoutMs);
    if (keepOpen) await this.#ws?.close();
    if (result.drained) await this.#webhook?.idle();
    this.#status.close();
    this.#state = 'closed';
    this.#unwatchSignals();
    this.#o.logger.info('agent closed', { drained: result.drained, abandoned: result.abandoned });
    this.#emitter.emit('closed', result);
    return result;
  }

  #warnIfWsOnly(event: string): void {
    const wsOnly = isWsOnlyEventType(event) || WS_ONLY_NOTIFICATIONS.has(event);
    if (this.mode !== 'webhook' || !wsOnly || this.#warned.has(event)) return;
    this.#warned.add(event);
    this.#o.logger.warn(
      `"${event}" is sent only over WebSocket: this listener never fires in webhook mode (use mode: "websocket")`,
      { event },
    );
  }
}

/** An error in words for one log line: its message, and its cause's when it adds something. */
function reasonOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? error.cause : undefined;
  const detail = cause === undefined ? undefined : ((cause as { code?: unknown }).code ?? cause.message);
  return detail === undefined || error.message.includes(String(detail))
    ? error.message
    : `${error.message} (${String(detail)})`;
}
