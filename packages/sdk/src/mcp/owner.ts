/**
 * The bridge's line to the agent's owner: which conversation it is (given,
 * or the agent's one-to-one conversation with the user who owns it), and an
 * inbox of the owner's messages there, waited on with a timeout on an
 * injectable clock.
 *
 * @module
 */
import type { Agent, IncomingMessage, MessagePayload } from '../index.js';
import { ConfigurationError, systemClock, type Clock } from '../protocol.js';
import { boundedWait } from './wait.js';

/** A message from the owner, as the bridge hands it to an MCP client. */
export interface OwnerMessage {
  /** The signed message id. */
  readonly messageId: string;
  /** When the owner's client created it (signed), ISO 8601 UTC. */
  readonly createdAt: string;
  /** The text of a text message; for other payloads a one-line description (`[file report.pdf, 1234 bytes]`). */
  readonly text: string;
  /** The payload type (`text`, `file`, …). */
  readonly type: string;
}

/** Messages kept for `wait_for_reply` while nobody waits; the oldest go first. */
export const OWNER_INBOX_MAX = 100;

/** Options of {@link OwnerChannel}. */
export interface OwnerChannelOptions {
  readonly agent: Agent;
  /** The conversation with the owner. @defaultValue the agent's one-to-one conversation with its owner */
  readonly conversationId?: string | undefined;
  /** Time for the waits. @defaultValue `systemClock` */
  readonly clock?: Clock | undefined;
}

/** One line describing a payload that is not text. */
function describePayload(payload: MessagePayload): string {
  if (payload.type === 'file') {
    const f = payload as { name?: unknown; size?: unknown };
    const name = typeof f.name === 'string' ? f.name : 'file';
    return typeof f.size === 'number' ? `[file ${name}, ${f.size} bytes]` : `[file ${name}]`;
  }
  return `[${payload.type} message]`;
}

/**
 * The agent's one-to-one conversation with the user that owns it
 * (`GET /agents/:id`, then `GET /agents/:id/conversations`).
 *
 * @throws {@link ConfigurationError} when the agent has no owner or no conversation with it yet.
 */
export async function ownerConversation(
  agent: Agent,
): Promise<{ conversationId: string; ownerId: string | undefined }> {
  const self = await agent.api.getSelf();
  const ownerId = self.view.owner_id;
  if (ownerId === undefined) {
    throw new ConfigurationError({
      message: 'The service does not name an owner for this agent: pass conversationId.',
      option: 'conversationId',
    });
  }
  const all = await agent.api.conversations();
  const found =
    all.find((c) => c.user_id === ownerId && c.state === 'established') ??
    all.find((c) => c.user_id === ownerId);
  if (found === undefined) {
    throw new ConfigurationError({
      message:
        'The agent has no conversation with its owner yet: the owner adds the agent first (e.g. `ams dev send hi`).',
      option: 'conversationId',
    });
  }
  return { conversationId: found.conversation_id, ownerId };
}

/**
 * The owner's conversation and inbox. Listens to the agent's `message.new`
 * from the moment it is built; {@link OwnerChannel.close} stops listening.
 */
export class OwnerChannel {
  readonly #agent: Agent;
  readonly #clock: Clock;
  readonly #given: string | undefined;
  #resolved: Promise<{ conversationId: string; ownerId: string | undefined }> | undefined;
  readonly #inbox: OwnerMessage[] = [];
  readonly #waiters = new Set<(m: OwnerMessage) => void>();
  readonly #listener = (m: IncomingMessage): void => this.#onMessage(m);

  constructor(options: OwnerChannelOptions) {
    this.#agent = options.agent;
    this.#clock = options.clock ?? systemClock;
    this.#given = options.conversationId;
    this.#agent.on('message.new', this.#listener);
  }

  /** The time source of the waits. */
  get clock(): Clock {
    return this.#clock;
  }

  /**
   * The owner's conversation id: the one given, else the agent's one-to-one
   * conversation with the user that owns it (`GET /agents/:id`, then
   * `GET /agents/:id/conversations`). A failed lookup is tried again next time.
   *
   * @throws {@link ConfigurationError} when the agent has no owner or no conversation with it yet.
   */
  async conversationId(): Promise<string> {
    return (await this.#resolve()).conversationId;
  }

  #resolve(): Promise<{ conversationId: string; ownerId: string | undefined }> {
    if (this.#given !== undefined)
      return Promise.resolve({ conversationId: this.#given, ownerId: undefined });
    this.#resolved ??= ownerConversation(this.#agent).catch((err: unknown) => {
      this.#resolved = undefined;
      throw err;
    });
    return this.#resolved;
  }

  #onMessage(m: IncomingMessage): void {
    const given = this.#given;
    if (given !== undefined && m.conversationId !== given) return;
    void (async () => {
      if (given === undefined) {
        // Resolve first: a message of another conversation, or from someone else, is not the owner's.
        const r = await this.#resolve().catch(() => undefined);
        if (r === undefined || r.conversationId !== m.conversationId || m.senderId !== r.ownerId) return;
      }
      const message: OwnerMessage = {
        messageId: m.messageId,
        createdAt: m.createdAt,
        text: m.text ?? describePayload(m.payload),
        type: m.payload.type,
      };
      const [waiter] = this.#waiters;
      if (waiter !== undefined) {
        this.#waiters.delete(waiter);
        waiter(message);
        return;
      }
      this.#inbox.push(message);
      if (this.#inbox.length > OWNER_INBOX_MAX) this.#inbox.shift();
    })();
  }

  /**
   * The oldest unread message of the owner, or the next one to arrive within
   * `timeoutMs` (on the channel's clock).
   *
   * @throws `TimeoutError` when none arrives in time; the signal's reason when it aborts first.
   */
  nextMessage(timeoutMs: number, signal?: AbortSignal): Promise<OwnerMessage> {
    const first = this.#inbox.shift();
    if (first !== undefined) return Promise.resolve(first);
    return boundedWait<OwnerMessage>(
      this.#clock,
      timeoutMs,
      signal,
      `No message from the owner within ${timeoutMs} ms.`,
      (resolve) => {
        this.#waiters.add(resolve);
        return () => this.#waiters.delete(resolve);
      },
    );
  }

  /** How many unread messages of the owner are kept. */
  get unread(): number {
    return this.#inbox.length;
  }

  /** Stops listening to the agent (pending waits are left to their timeouts). */
  close(): void {
    this.#agent.off('message.new', this.#listener);
  }
}
