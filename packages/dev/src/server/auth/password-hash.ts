/**
 * Account passwords are stored as scrypt hashes (RFC 7914, node:crypto's
 * native implementation, run off the event loop) in PHC string form:
 * `$scrypt$ln=15,r=8,p=3$<salt>$<hash>` with a 16-byte random salt and a
 * 32-byte output. The parameters travel with each hash, so a cost change
 * never locks anyone out.
 *
 * The default (N = 2^15, r = 8, p = 3: 32 MiB, ~250 ms on one core) is one of
 * OWASP's recommended scrypt settings. Tests lower it through
 * {@link PasswordHashingOptions}; production keeps the default.
 *
 * @module
 */
import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { ConfigurationError } from 'agent-messaging-sdk/protocol';

/** scrypt cost parameters. */
export interface PasswordHashingOptions {
  /**
   * log2 of the CPU/memory cost N.
   * @defaultValue 15
   */
  readonly logN?: number;
  /**
   * Block size r.
   * @defaultValue 8
   */
  readonly blockSize?: number;
  /**
   * Parallelisation p (computed sequentially by Node).
   * @defaultValue 3
   */
  readonly parallelization?: number;
}

/** The production cost: OWASP's N = 2^15, r = 8, p = 3. */
export const DEFAULT_PASSWORD_HASHING = {
  logN: 15,
  blockSize: 8,
  parallelization: 3,
} as const satisfies Required<PasswordHashingOptions>;

const SALT_BYTES = 16;
const KEY_BYTES = 32;
const PHC = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,3}),p=(\d{1,3})\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/;

/** Hashes and verifies account passwords. */
export interface PasswordHasher {
  /** A PHC string for `password`. */
  hash(password: string): Promise<string>;
  /** True when `password` matches `stored`; false for any malformed `stored`. */
  verify(password: string, stored: string): Promise<boolean>;
  /** Spends the same time as a failed {@link verify}, for unknown accounts. */
  verifyDummy(password: string): Promise<void>;
}

function derive(password: string, salt: Buffer, p: Required<PasswordHashingOptions>): Promise<Buffer> {
  const N = 2 ** p.logN;
  const options = { N, r: p.blockSize, p: p.parallelization, maxmem: 256 * N * p.blockSize };
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, KEY_BYTES, options, (err, key) =>
      err ? reject(err) : resolve(key),
    );
  });
}

function toPhc(p: Required<PasswordHashingOptions>, salt: Buffer, key: Buffer): string {
  const b64 = (b: Buffer): string => b.toString('base64').replace(/=+$/, '');
  return `$scrypt$ln=${p.logN},r=${p.blockSize},p=${p.parallelization}$${b64(salt)}$${b64(key)}`;
}

/**
 * Builds the scrypt {@link PasswordHasher}.
 *
 * @throws {@link ConfigurationError} when a parameter is out of range.
 * @example
 * ```ts
 * const hasher = createPasswordHasher({ logN: 10 }); // fast, for tests only
 * const stored = await hasher.hash('correct horse');
 * await hasher.verify('correct horse', stored); // true
 * ```
 */
export function createPasswordHasher(options: PasswordHashingOptions = {}): PasswordHasher {
  const params: Required<PasswordHashingOptions> = { ...DEFAULT_PASSWORD_HASHING, ...options };
  if (!Number.isInteger(params.logN) || params.logN < 1 || params.logN > 20) {
    throw new ConfigurationError({
      option: 'passwordHashing.logN',
      message: 'passwordHashing.logN must be an integer from 1 to 20.',
    });
  }
  if (!Number.isInteger(params.blockSize) || params.blockSize < 1 || params.blockSize > 64) {
    throw new ConfigurationError({
      option: 'passwordHashing.blockSize',
      message: 'passwordHashing.blockSize must be an integer from 1 to 64.',
    });
  }
  if (
    !Number.isInteger(params.parallelization) ||
    params.parallelization < 1 ||
    params.parallelization > 16
  ) {
    throw new ConfigurationError({
      option: 'passwordHashing.parallelization',
      message: 'passwordHashing.parallelization must be an integer from 1 to 16.',
    });
  }
  let dummy: Promise<string> | undefined;
  const hasher: PasswordHasher = {
    async hash(password) {
      const salt = randomBytes(SALT_BYTES);
      return toPhc(params, salt, await derive(password, salt, params));
    },
    async verify(password, stored) {
      const m = PHC.exec(stored);
      if (m === null) return false;
      const stamped = { logN: Number(m[1]), blockSize: Number(m[2]), parallelization: Number(m[3]) };
      const expected = Buffer.from(m[5]!, 'base64');
      const key = await derive(password, Buffer.from(m[4]!, 'base64'), stamped);
      return key.length === expected.length && timingSafeEqual(key, expected);
    },
    async verifyDummy(password) {
      dummy ??= hasher.hash('dummy password for timing only');
      await hasher.verify(password, await dummy);
    },
  };
  return hasher;
}
