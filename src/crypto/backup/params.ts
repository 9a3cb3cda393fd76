/**
 * Argon2id cost parameters of a key backup: the defaults we create with, the
 * floor below which we refuse to derive (so a server cannot downgrade a
 * backup to cheap parameters), and the ceiling above which a record is
 * rejected as hostile (so a server cannot make the client allocate gigabytes).
 *
 * `m` is memory in KiB (as in RFC 9106 and the `argon2_params` wire field),
 * `t` the number of passes, `p` the number of lanes.
 *
 * @module
 */
import { z } from 'zod';
import { CryptoError } from '../../core/errors/crypto-error.js';

/** Size of the Argon2id salt (`argon2_salt`), in bytes. */
export const ARGON2_SALT_BYTES = 32;

/**
 * Upper bounds of a record's `argon2_params`. Anything above is
 * `KEY_BACKUP_INVALID`: 256 MiB and 8 passes cost about 5 s of one core.
 */
export const ARGON2_PARAMS_MAX = Object.freeze({ m: 262_144, t: 8, p: 16 } as const);

/** Argon2id cost parameters, as on the wire (`argon2_params`). */
export const Argon2ParamsSchema = z
  .object({
    /** Memory in KiB. */
    m: z.int().min(8).max(ARGON2_PARAMS_MAX.m),
    /** Passes (iterations). */
    t: z.int().min(1).max(ARGON2_PARAMS_MAX.t),
    /** Lanes (parallelism). */
    p: z.int().min(1).max(ARGON2_PARAMS_MAX.p),
  })
  .refine((v) => v.m >= 8 * v.p, { message: 'm must be at least 8 KiB per lane (8 * p)', path: ['m'] });

/** Argon2id cost parameters: `m` memory in KiB, `t` passes, `p` lanes. */
export type Argon2Params = z.infer<typeof Argon2ParamsSchema>;

/**
 * Parameters new backups are created with: RFC 9106's second recommended
 * option (64 MiB, 3 passes, 4 lanes), about 0.3 s with hash-wasm on one
 * server core. A backup is derived once at registration and once per
 * restore, so we spend roughly 3.4× the OWASP minimum in memory × passes.
 */
export const DEFAULT_ARGON2_PARAMS: Readonly<Argon2Params> = Object.freeze({ m: 65_536, t: 3, p: 4 });

/**
 * The floor: OWASP's minimum for Argon2id (19 MiB, 2 passes, 1 lane). A
 * record, or caller options, with `m` or `t` below it is refused with
 * `KEY_BACKUP_PARAMS_TOO_WEAK`. Each component is compared on its own.
 */
export const ARGON2_PARAMS_FLOOR: Readonly<Argon2Params> = Object.freeze({ m: 19_456, t: 2, p: 1 });

/**
 * The parameters the minimal upload form implies. That form carries no
 * `argon2_params`, so both sides must agree on them out of band; this value
 * is frozen for good (it must never follow {@link DEFAULT_ARGON2_PARAMS}),
 * or older minimal backups would stop opening.
 */
export const MINIMAL_FORM_ARGON2_PARAMS: Readonly<Argon2Params> = Object.freeze({ m: 65_536, t: 3, p: 4 });

/**
 * Throws `KEY_BACKUP_PARAMS_TOO_WEAK` when `params` fall below `floor` in
 * memory or passes (lanes only split the work and are not compared).
 *
 * @throws {@link CryptoError} `KEY_BACKUP_PARAMS_TOO_WEAK`.
 */
export function assertArgon2Floor(params: Argon2Params, floor: Argon2Params = ARGON2_PARAMS_FLOOR): void {
  if (params.m < floor.m || params.t < floor.t) {
    throw new CryptoError({
      code: 'KEY_BACKUP_PARAMS_TOO_WEAK',
      message: `Argon2id parameters m=${params.m} KiB, t=${params.t} are below the floor m=${floor.m} KiB, t=${floor.t}`,
    });
  }
}
