/**
 * A pipeline with real crypto and fake surroundings: an agent key ring, a
 * directory of sender signing keys, an object store for `ref`s, and a
 * recording `send`. No network.
 */
import { createEventDedup } from '../../packages/sdk/src/agent/dedup.js';
import { TypedEmitter } from '../../packages/sdk/src/agent/emitter.js';
import type { AgentListenerArgs } from '../../packages/sdk/src/agent/events.js';
import { createOrderedScheduler } from '../../packages/sdk/src/agent/ordering.js';
import { EventPipeline } from '../../packages/sdk/src/agent/pipeline/pipeline.js';
import type {
  FetchedObject,
  InboundEvent,
  PipelineDeps,
} from '../../packages/sdk/src/agent/pipeline/types.js';
import type { RetiredSigningKey } from '../../packages/sdk/src/messaging/key-directory.js';
import { ManualClock } from '../../packages/sdk/src/core/clock.js';
import { fromBase64, toBase64 } from '../../packages/sdk/src/core/encoding.js';
import { silentLogger, type Logger } from '../../packages/sdk/src/core/logger.js';
import { generateKeys, KeyRing, seal, type AgentKeys } from '../../packages/sdk/src/crypto/index.js';
import { MESSAGE_DEDUP_MEMORY_MS } from '../../packages/sdk/src/crypto/freshness.js';
import {
  createMemoryDedupStore,
  type MemoryDedupStore,
} from '../../packages/sdk/src/webhook/dedup/memory.js';

export const AGENT_ID = 'agent-1';
export const USER_ID = 'user-1';
export const CONVERSATION = 'conv-1';

let seq = 0;
/** A fresh UUID v7-shaped delivery id. */
export function deliveryId(): string {
  seq += 1;
  const tail = seq.toString(16).padStart(12, '0');
  return `01890f3e-1c2a-7b3c-8d4e-${tail}`;
}

/** The harness. */
export interface Harness {
  readonly pipeline: EventPipeline;
  readonly emitter: TypedEmitter<AgentListenerArgs>;
  readonly clock: ManualClock;
  readonly store: MemoryDedupStore;
  readonly agentKeys: AgentKeys;
  ring: KeyRing;
  readonly user: AgentKeys;
  readonly system: AgentKeys;
  /** Signing keys the directory knows. */
  readonly directory: Map<string, Uint8Array>;
  /** Objects behind `ref`s. */
  readonly objects: Map<string, FetchedObject>;
  /** What `reply` / `send` posted. */
  readonly sent: { conversationId: string; payload: unknown }[];
  /** Sender-key lookups made. */
  readonly lookups: string[];
  /** Makes the next sender-key lookups fail with this error. */
  failLookups: unknown;
  /** Ids whose cached key was invalidated. */
  readonly invalidated: string[];
  /** Retired signing keys by sender id (what the key directory would list in grace). */
  readonly retiredSigning: Map<string, RetiredSigningKey[]>;
  /** Runs when a key is invalidated (e.g. to put the fresh key in the directory). */
  onInvalidate: ((id: string) => void) | undefined;
  /** Seals `payload` from `sender` (default the user) to the agent. */
  sealFrom(payload: Record<string, unknown>, o?: SealFromOptions): string;
  /** An inbound event of `type` carrying `wire`. */
  sealed(type: string, wire: string, o?: { deliveryId?: string; conversationId?: string }): InboundEvent;
}

/** Options of {@link Harness.sealFrom}. */
export interface SealFromOptions {
  sender?: { id: string; keys: AgentKeys };
  conversationId?: string;
  messageId?: string;
  to?: Uint8Array;
  /** The signed event type. @defaultValue `'message.new'` */
  eventType?: string;
  /** Seal as this envelope version. @defaultValue `'1.1'` */
  version?: '1.0' | '1.1';
  /** The signed creation time. @defaultValue the harness clock's now */
  createdAt?: string;
}

/** Builds a harness; `concurrency` bounds the handler lanes. */
export function createHarness(
  options: {
    concurrency?: number;
    logger?: Logger;
    acceptLegacyV10?: boolean;
    vet?: PipelineDeps['vet'];
  } = {},
): Harness {
  const clock = new ManualClock(Date.parse('2026-03-01T12:00:00.000Z'));
  const agentKeys = generateKeys();
  const user = generateKeys();
  const system = generateKeys();
  const directory = new Map<string, Uint8Array>([
    [USER_ID, user.signing.publicKey],
    ['system', system.signing.publicKey],
  ]);
  const objects = new Map<string, FetchedObject>();
  const sent: { conversationId: string; payload: unknown }[] = [];
  const lookups: string[] = [];
  const store = createMemoryDedupStore({ clock, windowMs: MESSAGE_DEDUP_MEMORY_MS });
  const logger = options.logger ?? silentLogger;
  const emitter = new TypedEmitter<AgentListenerArgs>(() => undefined);
  const h: Harness = {
    clock,
    store,
    agentKeys,
    ring: KeyRing.create(agentKeys, clock.now()),
    user,
    system,
    directory,
    objects,
    sent,
    lookups,
    failLookups: undefined,
    invalidated: [],
    retiredSigning: new Map(),
    onInvalidate: undefined,
    emitter,
    pipeline: undefined as never,
    sealFrom(payload, o = {}) {
      const sender = o.sender ?? { id: USER_ID, keys: user };
      return seal(payload, {
        sender: { id: sender.id, signing: sender.keys.signing },
        recipients: [{ id: AGENT_ID, publicKey: o.to ?? agentKeys.encryption.publicKey }],
        conversationId: o.conversationId ?? CONVERSATION,
        clock,
        ...(o.messageId === undefined ? {} : { messageId: o.messageId }),
        ...(o.eventType === undefined ? {} : { eventType: o.eventType }),
        ...(o.version === undefined ? {} : { version: o.version }),
        ...(o.createdAt === undefined ? {} : { createdAt: o.createdAt }),
      });
    },
    sealed(type, wire, o = {}) {
      return {
        type,
        deliveryId: o.deliveryId ?? deliveryId(),
        wireEnvelope: wire,
        ref: undefined,
        metadata: {
          conversation_id: o.conversationId ?? CONVERSATION,
          sender_id: USER_ID,
          created_at: new Date(clock.now()).toISOString(),
        },
        payload: undefined,
      };
    },
  };
  const deps: PipelineDeps = {
    agentId: AGENT_ID,
    clock,
    logger,
    acceptLegacyV10: options.acceptLegacyV10,
    vet: options.vet,
    keys: {
      ring: () => h.ring,
      signingKey: async (id) => {
        lookups.push(id);
        if (h.failLookups !== undefined) throw h.failLookups;
        return directory.get(id);
      },
      invalidate: (id) => {
        h.invalidated.push(id);
        h.onInvalidate?.(id);
      },
      retiredSigningKeys: async (id) => h.retiredSigning.get(id) ?? [],
    },
    fetchObject: async (key) => {
      const o = objects.get(key);
      if (o === undefined) throw new Error('no such object');
      return o;
    },
    send: async (conversationId, payload) => {
      sent.push({ conversationId, payload });
      return { messageId: 'sent-1', conversationId, seq: 1, created: true, view: {} as never };
    },
  };
  (h as { pipeline: EventPipeline }).pipeline = new EventPipeline({
    deps,
    dedup: createEventDedup({ store, leaseMs: 60_000, logger }),
    scheduler: createOrderedScheduler({ concurrency: options.concurrency ?? 4 }),
    emitter,
  });
  return h;
}

/** Base64 ↔ bytes for ref tests. */
export const bytesOf = (wire: string): Uint8Array => fromBase64(wire)!;
export const wireOf = (bytes: Uint8Array): string => toBase64(bytes);
