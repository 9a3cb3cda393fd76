/**
 * The dev/test control API: what the service interface leaves to the outside
 * world (the mailbox, Turnstile, time) made steerable. In-process callers use
 * {@link ControlApi} through the server handle; the same operations are served
 * over HTTP under `/_control/…` only in dev mode.
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import { ConfigurationError } from '../../core/errors/index.js';
import type { VerificationEmail } from '../auth/mailbox.js';
import type { TurnstilePolicy } from '../auth/turnstile.js';
import type { ServerContext } from '../context.js';
import type { CodeScene } from '../store/types.js';

/** Input of {@link ControlApi.createUser}. */
export interface ControlUserOptions {
  readonly email: string;
  readonly password: string;
  /** @defaultValue the part of the email before `@`, padded to 2 characters */
  readonly displayName?: string;
  /** @defaultValue `'en'` */
  readonly deviceLocale?: string;
  /**
   * An unverified account gets EMAIL_VERIFICATION_REQUIRED on password login
   * until a code login or reset proves the address.
   * @defaultValue `true`
   */
  readonly emailVerified?: boolean;
}

/** What the control API reveals about an account. */
export interface AccountState {
  readonly userId: string;
  readonly email: string;
  readonly emailVerified: boolean;
  readonly failedLogins: number;
  /** End of the current lock, ms since the epoch, or undefined. */
  readonly lockedUntilMs: number | undefined;
  /** How many times the account has been locked. */
  readonly lockCount: number;
  readonly deviceCount: number;
  readonly hasKeyBackup: boolean;
}

/** Steers a running reference server. */
export class ControlApi {
  readonly #ctx: ServerContext;

  constructor(ctx: ServerContext) {
    this.#ctx = ctx;
  }

  /**
   * Verification emails sent to `address`, newest first.
   *
   * @throws {@link ConfigurationError} when the server was given its own `mailer`.
   */
  emails(address: string, scene?: CodeScene): readonly VerificationEmail[] {
    const mailbox = this.#ctx.mailbox;
    if (mailbox === undefined) {
      throw new ConfigurationError({
        option: 'mailer',
        message: 'A custom mailer is set; the dev mailbox is off.',
      });
    }
    return mailbox.messages(address.trim().toLowerCase(), scene);
  }

  /** The newest code sent to `address` (optionally of one scene), if any. */
  latestCode(address: string, scene?: CodeScene): string | undefined {
    return this.emails(address, scene)[0]?.code;
  }

  /** The Turnstile policy. @throws {@link ConfigurationError} when a custom verifier is set. */
  get turnstilePolicy(): TurnstilePolicy {
    return this.#devTurnstile().policy;
  }

  /** Chooses which Turnstile tokens pass. @throws {@link ConfigurationError} when a custom verifier is set. */
  setTurnstilePolicy(policy: TurnstilePolicy): void {
    this.#devTurnstile().setPolicy(policy);
  }

  /** The server's current time, ms since the epoch. */
  now(): number {
    return this.#ctx.clock.now();
  }

  /** True when the server runs on a virtual clock. */
  get virtualTime(): boolean {
    return this.#ctx.virtualClock !== undefined;
  }

  /**
   * Moves virtual time forward, firing due timers (WebSocket deadlines, expiry notices).
   *
   * @throws {@link ConfigurationError} when the server is not in virtual-time mode.
   * @throws RangeError for a negative or non-finite `ms`.
   */
  advanceTime(ms: number): void {
    const clock = this.#ctx.virtualClock;
    if (clock === undefined) {
      throw new ConfigurationError({
        option: 'virtualTime',
        message: 'The server is not running on a virtual clock.',
      });
    }
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError('advanceTime needs a finite, non-negative ms');
    clock.advance(ms);
  }

  /** Creates an account directly (no code, no Turnstile). Returns its user id. */
  async createUser(options: ControlUserOptions): Promise<string> {
    const email = options.email.trim().toLowerCase();
    const local = email.split('@')[0] ?? 'user';
    const created = await this.#ctx.store.users.create({
      userId: randomUUID(),
      email,
      emailVerified: options.emailVerified ?? true,
      displayName: options.displayName ?? local.padEnd(2, '_').slice(0, 24),
      deviceLocale: options.deviceLocale ?? 'en',
      passwordHash: await this.#ctx.passwords.hash(options.password),
      createdAtMs: this.#ctx.clock.now(),
    });
    if (created === 'email_taken') {
      throw new ConfigurationError({
        option: 'email',
        message: 'An account with this email already exists.',
      });
    }
    return created.userId;
  }

  /** The state of the account of `address`, if it exists. */
  async account(address: string): Promise<AccountState | undefined> {
    const user = await this.#ctx.store.users.byEmail(address.trim().toLowerCase());
    if (user === undefined) return undefined;
    const now = this.#ctx.clock.now();
    const devices = await this.#ctx.store.devices.list(user.userId, now);
    const backup = await this.#ctx.store.keyBackups.get(user.userId);
    return {
      userId: user.userId,
      email: user.email,
      emailVerified: user.emailVerified,
      failedLogins: user.failedLogins,
      lockedUntilMs: user.lockedUntilMs > now ? user.lockedUntilMs : undefined,
      lockCount: user.lockCount,
      deviceCount: devices.length,
      hasKeyBackup: backup !== undefined,
    };
  }

  #devTurnstile() {
    const t = this.#ctx.devTurnstile;
    if (t === undefined) {
      throw new ConfigurationError({ option: 'turnstile', message: 'A custom Turnstile verifier is set.' });
    }
    return t;
  }
}
