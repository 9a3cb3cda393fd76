/**
 * Acknowledged delivery to users (a gap decision; see docs/user-client.md
 * "Gap decisions", "Catch-up after a reconnect"). The same wire scheme as the
 * agents' (`ack: true` in `auth`, `ack: { window, timeout_ms }` in `auth.ok`,
 * `delivery_id` on event frames, `{ type: 'ack', delivery_ids }` back), fed
 * from the inbox instead of a queue: everything addressed to a user is
 * stored before it is pushed, so the inbox is the user's durable queue.
 *
 * Per device the server keeps a cursor (`floor`: every message to the user
 * with `seq <= floor` is acknowledged by this device) and the acknowledged
 * seqs above it. An acknowledging connection does not get frames written by
 * the senders: a pump reads the user's conversations from the inbox in `seq`
 * order, from the device's cursor, skips what the device acknowledged, and
 * sends the rest with `delivery_id` (the seq, as a string), at most `window`
 * unacknowledged at once. A new message only wakes the pump, so catch-up and
 * live traffic are one ordered stream. When a connection ends, its
 * unacknowledged messages stay above the cursor and the next connection of
 * the device sends them first. Messages sent by the user are not delivered
 * back (as without acks).
 *
 * A device's first acknowledging connection starts at its first sign-in:
 * messages received since then that it never acknowledged are delivered.
 *
 * @module
 */
import { SYSTEM_SENDER_ID } from '../agents/system-sender.js';
import type { Clock } from 'agent-messaging-sdk/protocol';
import type { MessageRecord } from '../store/agent-types.js';
import type { Store } from '../store/types.js';
import type { HubConnection } from './connection.js';
import type { OutgoingFrame } from './frames.js';

/** Messages read per conversation and page by the pump. */
export const USER_PUMP_PAGE = 100;

/** Event type of a stored message from the system sender (the only kind it stores: notices). */
const NOTICE_EVENT = 'delivery.failed';

/** What the pump needs. */
export interface UserDeliveriesDeps {
  readonly store: Store;
  readonly clock: Clock;
  /** Unacknowledged deliveries per connection. */
  readonly window: number;
  /** The event frame of a stored message. */
  readonly frameOf: (type: string, m: MessageRecord) => OutgoingFrame;
}

interface DeviceCursor {
  /** Every message to the user with `seq <= floor` is acknowledged (or older than `sinceMs`). */
  floor: number;
  /** Acknowledged seqs above `floor`. */
  readonly acked: Set<number>;
  /** Messages received before this (the device's first sign-in) are not delivered. */
  readonly sinceMs: number;
}

interface Stream {
  readonly conn: HubConnection;
  readonly userId: string;
  readonly device: DeviceCursor;
  /** Every message to the user with `seq <= scanned` was skipped as acknowledged or is in `inFlight`. */
  scanned: number;
  readonly inFlight: Set<number>;
  running: boolean;
  woken: boolean;
  closed: boolean;
}

interface Page {
  readonly messages: readonly MessageRecord[];
  /** Every message with `seq <= through` of the user's conversations was read. */
  readonly through: number;
  readonly more: boolean;
}

/** The delivery id of a stored message. */
export const deliveryIdOf = (seq: number): string => String(seq);

/** Acknowledged delivery to user connections. */
export class UserDeliveries {
  readonly #d: UserDeliveriesDeps;
  readonly #devices = new Map<string, Promise<DeviceCursor>>();
  readonly #streams = new Map<number, Stream>();
  /** Connections whose stream is being set up (the first pump reads whatever arrives meanwhile). */
  readonly #opening = new Set<number>();

  constructor(deps: UserDeliveriesDeps) {
    this.#d = deps;
  }

  /** Starts the stream of a connection that negotiated acks: first what it missed, then new messages. */
  async open(conn: HubConnection, userId: string, deviceId: string): Promise<void> {
    this.#opening.add(conn.id);
    const device = await this.#device(userId, deviceId).catch(() => undefined);
    if (!this.#opening.delete(conn.id) || device === undefined || conn.state !== 'open') return;
    const stream: Stream = {
      conn,
      userId,
      device,
      scanned: device.floor,
      inFlight: new Set(),
      running: false,
      woken: false,
      closed: false,
    };
    this.#streams.set(conn.id, stream);
    await this.#pump(stream);
  }

  /** Ends a connection's stream; its unacknowledged messages go to the device's next connection. */
  close(conn: HubConnection): void {
    this.#opening.delete(conn.id);
    const stream = this.#streams.get(conn.id);
    if (stream === undefined) return;
    stream.closed = true;
    this.#streams.delete(conn.id);
  }

  /** True when `conn` is fed by a stream (new messages only wake it). */
  has(conn: HubConnection): boolean {
    return this.#streams.has(conn.id) || this.#opening.has(conn.id);
  }

  /** A new message for the user of `conn`: the stream reads it from the inbox. */
  wake(conn: HubConnection): void {
    const stream = this.#streams.get(conn.id);
    if (stream !== undefined) void this.#pump(stream);
  }

  /** Records acknowledgements (unknown or repeated ids are ignored); returns how many were in flight. */
  ack(conn: HubConnection, deliveryIds: readonly string[]): number {
    const stream = this.#streams.get(conn.id);
    if (stream === undefined) return 0;
    let inFlight = 0;
    for (const id of deliveryIds) {
      if (!/^[1-9]\d{0,15}$/.test(id)) continue;
      const seq = Number(id);
      const sent = stream.inFlight.delete(seq);
      if (sent) inFlight++;
      // Only seqs this stream has passed count (bounds the set against made-up ids).
      if ((sent || seq <= stream.scanned) && seq > stream.device.floor) stream.device.acked.add(seq);
    }
    this.#advance(stream);
    void this.#pump(stream);
    return inFlight;
  }

  #device(userId: string, deviceId: string): Promise<DeviceCursor> {
    const key = `${userId}\u0000${deviceId}`;
    let cursor = this.#devices.get(key);
    if (cursor === undefined) {
      const now = this.#d.clock.now();
      cursor = this.#d.store.devices.get(userId, deviceId, now).then((device) => ({
        floor: 0,
        acked: new Set<number>(),
        sinceMs: device?.createdAtMs ?? now,
      }));
      this.#devices.set(key, cursor);
    }
    return cursor;
  }

  /** Sends from the inbox until the window is full or nothing is left; one run per stream at a time. */
  async #pump(s: Stream): Promise<void> {
    if (s.running) {
      s.woken = true;
      return;
    }
    s.running = true;
    try {
      do {
        s.woken = false;
        await this.#drain(s);
      } while (s.woken && !s.closed);
    } finally {
      s.running = false;
    }
  }

  async #drain(s: Stream): Promise<void> {
    for (;;) {
      if (s.closed || s.inFlight.size >= this.#d.window) return;
      const page = await this.#page(s.userId, s.scanned);
      if (s.closed) return;
      for (const m of page.messages) {
        if (s.inFlight.size >= this.#d.window) {
          s.scanned = m.seq - 1;
          this.#advance(s);
          return;
        }
        if (!this.#skips(s.device, m) && !this.#send(s, m)) return;
      }
      s.scanned = Math.max(s.scanned, page.through);
      this.#advance(s);
      if (!page.more) return;
    }
  }

  #skips(device: DeviceCursor, m: MessageRecord): boolean {
    return m.receivedAtMs < device.sinceMs || m.seq <= device.floor || device.acked.has(m.seq);
  }

  #send(s: Stream, m: MessageRecord): boolean {
    const type = m.senderId === SYSTEM_SENDER_ID ? NOTICE_EVENT : 'message.new';
    if (!s.conn.send({ ...this.#d.frameOf(type, m), delivery_id: deliveryIdOf(m.seq) })) {
      s.closed = true;
      return false;
    }
    s.inFlight.add(m.seq);
    return true;
  }

  /** Moves the device's cursor up to the stream's first unacknowledged message. */
  #advance(s: Stream): void {
    let first = Infinity;
    for (const seq of s.inFlight) first = Math.min(first, seq);
    const floor = first === Infinity ? s.scanned : first - 1;
    const device = s.device;
    if (floor <= device.floor) return;
    device.floor = floor;
    for (const seq of device.acked) if (seq <= floor) device.acked.delete(seq);
  }

  /**
   * The next messages to the user after `after`, in `seq` order, over all of
   * their conversations: each conversation's next page, cut at the lowest
   * last seq of a full page (beyond it another conversation may have more).
   */
  async #page(userId: string, after: number): Promise<Page> {
    const { store } = this.#d;
    const conversations = [
      ...(await store.conversations.listByUser(userId)),
      ...(await store.groups.listByMember(userId)),
    ];
    const lists = await Promise.all(
      conversations.map((c) => store.messages.list(c.conversationId, after, USER_PUMP_PAGE)),
    );
    let bound = Infinity;
    let last = after;
    for (const list of lists) {
      const tail = list[list.length - 1];
      if (tail === undefined) continue;
      last = Math.max(last, tail.seq);
      if (list.length >= USER_PUMP_PAGE) bound = Math.min(bound, tail.seq);
    }
    const messages = lists
      .flat()
      .filter((m) => m.seq <= bound && m.senderId !== userId)
      .sort((a, b) => a.seq - b.seq);
    return bound === Infinity
      ? { messages, through: last, more: false }
      : { messages, through: bound, more: true };
  }
}
