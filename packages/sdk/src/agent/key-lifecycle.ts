/**
 * The agent's keys at start: load them from the key store (or create them),
 * and bring the service's registration in line.
 *
 * | Local store | Service says | Action | Event |
 * |---|---|---|---|
 * | empty | — | generate, save | `keys.created` |
 * | any | no keys registered (AGENT_NOT_REGISTERED) | register the local keys | `keys.registered` |
 * | keys = current | a regeneration is pending (`key_rotation_pending`) | rotate locally (old X25519 pair kept until the service's grace end; none after an emergency), register the new pair with the new token and, after a normal regeneration, a key succession statement signed by the old signing key | `keys.rotated`, `keys.registered` |
 * | keys = current | nothing pending | nothing (proven with `POST /agents/:id/keys/check`) | — |
 * | other keys | AGENT_KEYS_MISMATCH (or the local pair is only a retired one) | wipe the store, generate, save, register; a `warn` log line | `keys.mismatch_healed`, `keys.registered` |
 *
 * Retired pairs stay in the ring until their grace ends ({@link KeyRing.candidates}
 * stops offering them then, and the store erases them on its next load).
 * Log lines and events carry key fingerprints and ids, never keys or tokens.
 *
 * @module
 */
import { systemClock, type Clock } from '../core/clock.js';
import { isServiceError } from '../core/errors/guards.js';
import { LIMITS } from '../core/limits.js';
import { redactingLogger, silentLogger, type Logger } from '../core/logger.js';
import type { KeyStatementWire } from '../core/protocol/key-statement.js';
import { buildKeyProof } from '../crypto/key-proof.js';
import { keyStatementToWire, signKeyStatement } from '../crypto/key-statement.js';
import { KeyRing } from '../crypto/key-store/key-ring.js';
import type { KeyStore } from '../crypto/key-store/key-store.js';
import { loadOrCreateKeys, rotateStoredKeys } from '../crypto/key-store/load-or-create.js';
import { generateKeys, keyFingerprint, type AgentKeys } from '../crypto/keys.js';
import type { AgentApi, AgentSelf } from './api.js';

/** Events of the key lifecycle. */
export type KeyLifecycleEventType =
  'keys.created' | 'keys.registered' | 'keys.rotated' | 'keys.mismatch_healed';

/** One key lifecycle event: fingerprints only (16 hex characters, not secret). */
export interface KeyLifecycleEvent {
  readonly type: KeyLifecycleEventType;
  /** Fingerprint of the (new) current X25519 public key. */
  readonly fingerprint: string;
  /** For `keys.rotated` and `keys.mismatch_healed`: the fingerprint of the replaced key. */
  readonly previousFingerprint?: string;
  /** For `keys.rotated`: how long the replaced pair keeps opening messages, ms (0 after an emergency). */
  readonly graceMs?: number;
}

/** The calls the key lifecycle needs (an `AgentApi` fits). */
export type KeyLifecycleApi = Pick<
  AgentApi,
  'agentId' | 'getSelf' | 'keyChallenge' | 'registerKeys' | 'checkKeys'
>;

/** Options of {@link ensureAgentKeys}. */
export interface EnsureAgentKeysOptions {
  /** The agent's REST calls. */
  api: KeyLifecycleApi;
  /** Where the key ring lives. */
  store: KeyStore;
  /** Time source (creation and grace times). @defaultValue `systemClock` */
  clock?: Clock;
  /** Where log lines go (redacted; fingerprints only). @defaultValue silent */
  logger?: Logger;
  /** Called for each lifecycle event; a throwing listener is logged and ignored. */
  onEvent?: (event: KeyLifecycleEvent) => void;
  /** Makes new key sets. @defaultValue {@link generateKeys} */
  generate?: () => AgentKeys;
}

interface Context {
  readonly api: KeyLifecycleApi;
  readonly store: KeyStore;
  readonly clock: Clock;
  readonly log: Logger;
  readonly generate: () => AgentKeys;
  readonly emit: (event: KeyLifecycleEvent) => void;
}

const fingerprintOf = (ring: KeyRing): string => keyFingerprint(ring.current.keys.encryption.publicKey);

async function register(
  c: Context,
  ring: KeyRing,
  replace = false,
  statement?: KeyStatementWire,
): Promise<void> {
  const challenge = await c.api.keyChallenge();
  const proof = buildKeyProof(c.api.agentId, ring.current.keys, challenge);
  const registered = await c.api.registerKeys(proof, { replace, statement });
  const fingerprint = fingerprintOf(ring);
  c.log.info('agent keys registered', { agentId: c.api.agentId, keyId: registered.keyId });
  if (registered.changed) c.emit({ type: 'keys.registered', fingerprint });
}

async function heal(c: Context, stale: KeyRing): Promise<KeyRing> {
  const previousFingerprint = fingerprintOf(stale);
  c.log.warn('local agent keys differ from the registered keys (AGENT_KEYS_MISMATCH): wiping the key store', {
    agentId: c.api.agentId,
    localKeyId: previousFingerprint,
  });
  await c.store.wipe();
  const ring = KeyRing.create(c.generate(), c.clock.now());
  await c.store.save(ring);
  await register(c, ring, true);
  c.emit({ type: 'keys.mismatch_healed', fingerprint: fingerprintOf(ring), previousFingerprint });
  return ring;
}

/**
 * Rotates to a new generation. A normal rotation (`previousGeneration` known)
 * has the old signing key vouch for the new keys in a key succession statement
 * (signed before the old signing key is erased, dated by this agent's clock);
 * an emergency one has none: the old key is presumed stolen, so peers treat
 * the new keys as a key change and kill the old generation.
 */
async function rotate(
  c: Context,
  ring: KeyRing,
  graceMs: number,
  previousGeneration?: number,
): Promise<KeyRing> {
  const newKeys = c.generate();
  const statement =
    previousGeneration === undefined
      ? undefined
      : keyStatementToWire(
          signKeyStatement(
            {
              subject: c.api.agentId,
              generation: previousGeneration + 1,
              encryption: newKeys.encryption.publicKey,
              signing: newKeys.signing.publicKey,
              previousKeyId: fingerprintOf(ring),
              issuedAtMs: c.clock.now(),
            },
            ring.current.keys.signing,
          ),
        );
  const next = await rotateStoredKeys(c.store, { clock: c.clock, graceMs, newKeys });
  const event = { fingerprint: fingerprintOf(next), previousFingerprint: fingerprintOf(ring), graceMs };
  c.log.info('agent keys rotated after a token regeneration', { agentId: c.api.agentId, ...event });
  c.emit({ type: 'keys.rotated', ...event });
  await register(c, next, false, statement);
  return next;
}

/** Local keys are current at the service (proven), or else healed or registered. */
async function verify(c: Context, ring: KeyRing): Promise<KeyRing> {
  try {
    const challenge = await c.api.keyChallenge();
    const check = await c.api.checkKeys(buildKeyProof(c.api.agentId, ring.current.keys, challenge));
    if (check.generation === 'current') return ring;
    // Our current pair is only a retired one there: another process rotated; ours is stale.
    return await heal(c, ring);
  } catch (err) {
    if (isServiceError(err, 'AGENT_KEYS_MISMATCH')) return heal(c, ring);
    if (isServiceError(err, 'AGENT_NOT_REGISTERED')) {
      await register(c, ring);
      return ring;
    }
    throw err;
  }
}

/** After a regeneration: rotate (keeping the old pair for the service's grace), or heal a mismatch. */
async function afterRegeneration(
  c: Context,
  ring: KeyRing,
  created: boolean,
  self: AgentSelf,
): Promise<KeyRing> {
  const current = self.keys;
  if (created) {
    await register(c, ring);
    return ring;
  }
  if (current === null) return rotate(c, ring, 0); // emergency (or grace over): the old pair is invalid
  if (current.keyId !== fingerprintOf(ring)) return heal(c, ring);
  const graceEnd = current.validUntilMs ?? c.clock.now() + LIMITS.TOKEN_GRACE_MS;
  return rotate(c, ring, Math.max(0, Math.floor(graceEnd - c.clock.now())), current.generation ?? 1);
}

/**
 * Loads or creates the agent's keys and makes sure the service has them
 * registered (see the module table). Call at every start, with the current
 * agent token in `api`.
 *
 * @returns the key ring to seal and open with (read `current` for sealing,
 *   `candidates(now)` for opening).
 * @throws {@link index!ServiceError | ServiceError} from the service: `AGENT_TOKEN_INVALID`, `FORBIDDEN` (a token in grace may not register keys)…
 * @throws {@link index!CryptoError | CryptoError} `KEY_STORE_CORRUPT` / `KEY_STORE_IO` from the store.
 * @throws {@link index!ValidationError | ValidationError} when the service's answer does not match its schema.
 * @example
 * ```ts
 * const ring = await ensureAgentKeys({
 *   api,
 *   store: new FileKeyStore({ directory: './agent-keys' }),
 *   onEvent: (e) => console.info(e.type, e.fingerprint),
 * });
 * ```
 */
export async function ensureAgentKeys(options: EnsureAgentKeysOptions): Promise<KeyRing> {
  const log = redactingLogger(options.logger ?? silentLogger);
  const c: Context = {
    api: options.api,
    store: options.store,
    clock: options.clock ?? systemClock,
    log,
    generate: options.generate ?? (() => generateKeys()),
    emit(event) {
      try {
        options.onEvent?.(event);
      } catch (err) {
        log.warn('a key lifecycle listener threw', { event: event.type, error: (err as Error)?.name });
      }
    },
  };
  const { ring, created } = await loadOrCreateKeys(c.store, { clock: c.clock, generate: c.generate });
  if (created) {
    log.info('agent keys created', { agentId: c.api.agentId, keyId: fingerprintOf(ring) });
    c.emit({ type: 'keys.created', fingerprint: fingerprintOf(ring) });
  }
  const self = await c.api.getSelf();
  let result: KeyRing;
  if (self.keyRotationPending) result = await afterRegeneration(c, ring, created, self);
  else if (self.keys === null) {
    await register(c, ring);
    result = ring;
  } else result = await verify(c, ring);
  return result.prune(c.clock.now());
}
