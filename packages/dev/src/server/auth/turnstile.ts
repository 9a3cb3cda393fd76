/**
 * Human verification (Cloudflare Turnstile) as a seam. The reference server
 * never calls Cloudflare: its default dev verifier (`DevTurnstile`) decides by a
 * policy the dev/test control API can change. Production-like setups pass
 * their own {@link TurnstileVerifier}.
 *
 * @module
 */
import { fail } from '../http/failure.js';

/** Decides whether a human-verification token passes. */
export type TurnstileVerifier = (token: string) => boolean | Promise<boolean>;

/**
 * Which tokens the reference server's built-in dev verifier lets through (used
 * when no custom {@link TurnstileVerifier} is given; see {@link ControlApi.setTurnstilePolicy}).
 */
export interface TurnstilePolicy {
  /** Verdict for tokens in neither list. */
  readonly default: 'pass' | 'fail';
  /** Tokens that always pass. */
  readonly pass: readonly string[];
  /** Tokens that always fail (checked first). */
  readonly fail: readonly string[];
}

/** The initial policy: every non-empty token passes. */
export const DEFAULT_TURNSTILE_POLICY: TurnstilePolicy = Object.freeze({
  default: 'pass',
  pass: [],
  fail: [],
});

/** A Turnstile stand-in whose verdicts follow a {@link TurnstilePolicy}. Empty tokens always fail. */
export class DevTurnstile {
  #policy: TurnstilePolicy = DEFAULT_TURNSTILE_POLICY;

  /** The current policy. */
  get policy(): TurnstilePolicy {
    return this.#policy;
  }

  /** Replaces the policy. */
  setPolicy(policy: TurnstilePolicy): void {
    this.#policy = Object.freeze({ default: policy.default, pass: [...policy.pass], fail: [...policy.fail] });
  }

  /** The {@link TurnstileVerifier} backed by this policy. */
  readonly verify: TurnstileVerifier = (token) => {
    if (token.length === 0) return false;
    if (this.#policy.fail.includes(token)) return false;
    if (this.#policy.pass.includes(token)) return true;
    return this.#policy.default === 'pass';
  };
}

/**
 * Passes when `verify` accepts `token`.
 *
 * @throws {@link ServerFailure} TURNSTILE_FAILED otherwise.
 */
export async function requireHuman(verify: TurnstileVerifier, token: string): Promise<void> {
  let passed: boolean;
  try {
    passed = await verify(token);
  } catch {
    passed = false;
  }
  if (!passed) throw fail('TURNSTILE_FAILED', 'The human-verification challenge failed. Try again.');
}
