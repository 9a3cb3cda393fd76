/**
 * Fakes for the delivery engine's unit tests: a scripted in-memory sender and
 * a target whose modes and sockets the test controls.
 */
import type { OutboundEvent } from '../../../../packages/dev/src/server/delivery/types.js';
import type {
  WebhookSendRequest,
  WebhookSendResult,
  WebhookSender,
} from '../../../../packages/dev/src/server/delivery/webhook-sender.js';

/** A recorded send. */
export interface FakeSend {
  readonly req: WebhookSendRequest;
  /** Settles the send when the script said `held`. */
  release(result: WebhookSendResult): void;
}

/** What the fake sender answers: a result, or `held` (the test settles it). */
export type FakeAnswer = WebhookSendResult | 'held';

/** An in-memory sender whose answers are scripted. */
export class FakeSender implements WebhookSender {
  readonly sends: FakeSend[] = [];
  readonly #script: FakeAnswer[] = [];
  fallback: FakeAnswer = { kind: 'response', status: 200, retryAfter: undefined };
  closed = false;

  /** Queues answers, one per send. */
  script(...answers: FakeAnswer[]): void {
    this.#script.push(...answers);
  }

  send(req: WebhookSendRequest): Promise<WebhookSendResult> {
    const answer = this.#script.shift() ?? this.fallback;
    return new Promise((resolve) => {
      const release = (result: WebhookSendResult): void => resolve(result);
      this.sends.push({ req, release });
      if (answer !== 'held') resolve(answer);
      else req.signal.addEventListener('abort', () => resolve({ kind: 'aborted' }), { once: true });
    });
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  /** Delivery ids of every send, in order. */
  get deliveryIds(): string[] {
    return this.sends.map((s) => s.req.headers['x-service-delivery-id'] ?? '');
  }

  /** Parsed bodies of every send, in order. */
  get bodies(): Record<string, unknown>[] {
    return this.sends.map((s) => JSON.parse(new TextDecoder().decode(s.req.body)) as Record<string, unknown>);
  }
}

/** A response result. */
export function status(code: number, retryAfter?: string): WebhookSendResult {
  return { kind: 'response', status: code, retryAfter };
}

/** A target whose modes and open sockets the test sets. */
export class FakeTarget {
  readonly modes = new Map<string, 'websocket' | 'webhook'>();
  readonly open = new Set<string>();
  readonly frames: { agentId: string; frame: Readonly<Record<string, unknown>> }[] = [];

  mode = (agentId: string): 'websocket' | 'webhook' | undefined => this.modes.get(agentId);

  sendWs = (agentId: string, frame: Readonly<Record<string, unknown>>): boolean => {
    if (!this.open.has(agentId)) return false;
    this.frames.push({ agentId, frame });
    return true;
  };
}

/** A 44-character base64 secret (32 bytes). */
export const SECRET = 'c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXNlY3I=';

let seq = 0;

/** A small event; `n` goes into the conversation id so order can be checked. */
export function event(n = seq++, type = 'message.new', wireEnvelope = 'AAECAwQ='): OutboundEvent {
  return {
    type,
    wireEnvelope,
    metadata: {
      conversation_id: `conv_${n}`,
      sender_id: 'user_1',
      created_at: '2026-03-01T12:00:00.000Z',
    },
    messageId: `msg_${n}`,
  };
}
