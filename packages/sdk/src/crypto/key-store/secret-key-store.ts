/**
 * A read-only {@link KeyStore} whose ring comes from a secret: an environment
 * variable, or a secret manager read by a function of yours. For copies of
 * one agent that share no disk: create and register the keys once in the
 * deploy pipeline (`ams keys init --secret-file`), put the secret in the
 * secret manager, and give it to every copy.
 *
 * The secret is the key ring file (`encodeKeyRing`), base64. Writes are
 * refused with `KEY_STORE_IO`: a rotation happens in the pipeline (a new
 * secret), never by one copy on its own, so copies cannot drift apart.
 *
 * @module
 */
import { systemClock, type Clock } from '../../core/clock.js';
import { CryptoError } from '../../core/errors/crypto-error.js';
import { fromBase64 } from '../../core/encoding.js';
import { decodeKeyRingFile } from './key-ring-codec.js';
import type { KeyRing } from './key-ring.js';
import type { KeyStore, KeyStoreOptions } from './key-store.js';

/** Options of {@link SecretKeyStore}. */
export interface SecretKeyStoreOptions extends KeyStoreOptions {
  /**
   * The secret: the key ring file in base64, or a function reading it (e.g.
   * from a secret manager, or `() => process.env.AMS_AGENT_KEYS`). Empty or
   * `undefined` means nothing is stored.
   */
  secret: string | undefined | (() => string | undefined | Promise<string | undefined>);
  /** A name for the secret in errors (never its value). @defaultValue `'secret'` */
  name?: string;
}

/**
 * Loads the agent's key ring from a secret; refuses every write.
 *
 * @example
 * ```ts
 * const agent = new Agent({
 *   agentId,
 *   token,
 *   keyStore: new SecretKeyStore({ secret: process.env.AMS_AGENT_KEYS, name: 'AMS_AGENT_KEYS' }),
 * });
 * ```
 */
export class SecretKeyStore implements KeyStore {
  readonly #secret: SecretKeyStoreOptions['secret'];
  readonly #name: string;
  readonly #clock: Clock;

  constructor(options: SecretKeyStoreOptions) {
    this.#secret = options.secret;
    this.#name = options.name ?? 'secret';
    this.#clock = options.clock ?? systemClock;
  }

  /**
   * Loads the key ring from the secret, or `undefined` when the secret is empty. Expired
   * generations are left out (the secret is not rewritten).
   */
  async load(): Promise<KeyRing | undefined> {
    let text: string | undefined;
    try {
      text = typeof this.#secret === 'function' ? await this.#secret() : this.#secret;
    } catch (cause) {
      throw new CryptoError({
        code: 'KEY_STORE_IO',
        message: `Cannot read key store ${this.#name}`,
        file: this.#name,
        cause,
      });
    }
    if (text === undefined || text.trim() === '') return undefined;
    const data = fromBase64(text.trim());
    if (data === undefined) {
      throw new CryptoError({
        code: 'KEY_STORE_CORRUPT',
        message: `Key store ${this.#name} is not base64`,
        file: this.#name,
      });
    }
    try {
      return decodeKeyRingFile(data, this.#name).ring.prune(this.#clock.now());
    } finally {
      data.fill(0);
    }
  }

  /** Refused: `KEY_STORE_IO` (update the secret in the deploy pipeline instead). */
  async save(_ring: KeyRing): Promise<void> {
    throw this.#readOnly('write');
  }

  /** `false` when the secret holds a ring; refused (`KEY_STORE_IO`) when it is empty. */
  async saveIfAbsent(_ring: KeyRing): Promise<boolean> {
    if ((await this.load()) !== undefined) return false;
    throw this.#readOnly('create keys in');
  }

  /** Refused: `KEY_STORE_IO`. */
  async wipe(): Promise<void> {
    throw this.#readOnly('wipe');
  }

  #readOnly(action: string): CryptoError {
    return new CryptoError({
      code: 'KEY_STORE_IO',
      message:
        `Cannot ${action} key store ${this.#name}: it is read-only. Create or rotate the keys in the ` +
        'deploy pipeline (ams keys init --secret-file) and update the secret.',
      file: this.#name,
    });
  }
}
