/**
 * Argon2id cost parameters of a key backup, as crypto's policy: the defaults
 * we create with, the floor below which we refuse to derive (so a server
 * cannot downgrade a backup to cheap parameters), and the ceiling above which
 * a record is rejected as hostile (so a server cannot make the client
 * allocate gigabytes).
 *
 * The wire shape and its structural bounds are the core model's
 * (`Argon2ParamsSchema` in `packages/sdk/src/core/protocol/key-backup.ts`); this module
 * only adds the policy on top. `m` is memory in KiB (as in RFC 9106 and the
 * `argon2_params` wire field), `t` the number of passes, `p` the number of lanes.
 *
 * @module
 */
import { CryptoError } from '../../core/errors/crypto-error.js';
import type { ValidationIssue } from '../../core/errors/validation-error.js';
import { Argon2ParamsSchema, type Argon2Params } from '../../core/protocol/key-backup.js';
import { validationError } from '../../core/protocol/parse.js';

/**
 * Upper bounds of a record's `argon2_params`, tighter than the wire model's
 * structural bounds. Anything above is `KEY_BACKUP_INVALID` at restore (and a
 * `ValidationError` at create): 256 MiB and 8 passes cost about 5 s of one core.
 */
export const ARGON2_PARAMS_MAX = Object.freeze({ m: 262_144, t: 8, p: 16 } as const);

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

/** The components of `params` above {@link ARGON2_PARAMS_MAX}, in `m`, `t`, `p` order (empty when within). */
export function argon2ParamsAboveCeiling(params: Argon2Params): ('m' | 't' | 'p')[] {
  return (['m', 't', 'p'] as const).filter((k) => params[k] > ARGON2_PARAMS_MAX[k]);
}

/**
 * Checks Argon2id parameters given by the caller (`params` at create,
 * `minimalFormParams` at restore): the wire model's structural bounds, then
 * {@link ARGON2_PARAMS_MAX}. The floor is not checked here.
 *
 * @param value - the caller's parameters.
 * @param option - the option's name, used as the first path segment of each issue.
 * @throws {@link ValidationError} naming the offending components.
 */
export function parseArgon2Option(value: unknown, option: string): Argon2Params {
  const parsed = Argon2ParamsSchema.safeParse(value);
  const issues: ValidationIssue[] = parsed.success
    ? argon2ParamsAboveCeiling(parsed.data).map((k) => ({
        path: [option, k],
        message: `Must be at most ${ARGON2_PARAMS_MAX[k]}`,
      }))
    : parsed.error.issues.map((i) => ({
        path: [option, ...i.path.map((p) => (typeof p === 'number' ? p : String(p)))],
        message: i.message,
      }));
  if (parsed.success && issues.length === 0) return parsed.data;
  throw validationError('Argon2id parameters', issues);
}

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
