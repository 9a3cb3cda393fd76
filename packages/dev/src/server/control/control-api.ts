/**
 * The dev/test control API: what the service interface leaves to the outside
 * world (the mailbox, Turnstile, time) made steerable. In-process callers use
 * {@link ControlApi} through the server handle; the same operations are served
 * over HTTP under `/_control/…` only in dev mode.
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import { ConfigurationError } from 'agent-messaging-sdk/protocol';
import type { VerificationEmail } from '../auth/mailbox.js';
import type { TurnstilePolicy } from '../auth/turnstile.js';
import type { ServerContext } from '../context.js';
import type { CodeScene } from '../store/types.js';
import type { AgentView } from '../agents/records.js';
import type { SystemEventOutcome } from '../agents/system-events.js';
import type { GovernanceLevel } from '../store/agent-types.js';
import {
  controlAccessToken,
  controlAgent,
  controlCreateAgent,
  controlGovernance,
  controlRelation,
  controlSystemEvent,
  controlWebhook,
  type ControlAccessToken,
  type ControlAgent,
  type ControlAgentOptions,
  type ControlWebhook,
} from './agent-control.js';

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

  /**
   * Built by the reference server; use {@link ReferenceServer.control}.
   *
   * @internal
   */
  constructor(ctx: ServerContext) {
    this.#ctx = ctx;
  }

  /**
   * Verification emails sent to `address`, newest first.
   *
   * @throws {@link index!ConfigurationError | ConfigurationError} when the server was given its own `mailer`.
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

  /** The Turnstile policy. @throws {@link index!ConfigurationError | ConfigurationError} when a custom verifier is set. */
  get turnstilePolicy(): TurnstilePolicy {
    return this.#devTurnstile().policy;
  }

  /** Chooses which Turnstile tokens pass. @throws {@link index!ConfigurationError | ConfigurationError} when a custom verifier is set. */
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
   * @throws {@link index!ConfigurationError | ConfigurationError} when the server is not in virtual-time mode.
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

  /** Creates an agent for `ownerId`; returns its id and token (shown once). */
  createAgent(options: ControlAgentOptions): Promise<ControlAgent> {
    return controlCreateAgent(this.#ctx, options);
  }

  /** The owner's view of an agent (status, mode, governance, keys, tokens), if it exists. */
  agent(agentId: string): Promise<AgentView | undefined> {
    return controlAgent(this.#ctx, agentId);
  }

  /**
   * Sets an agent's governance level (`none`, `L1`, `L2`, `L3`) with a reason.
   *
   * @throws {@link index!ConfigurationError | ConfigurationError} for an unknown agent.
   */
  setGovernance(agentId: string, level: GovernanceLevel, reason: string | null = null): Promise<void> {
    return controlGovernance(this.#ctx, agentId, level, reason);
  }

  /** The platform suspends a relation (`relation.suspended` to the agent). */
  suspendRelation(conversationId: string): Promise<unknown> {
    return controlRelation(this.#ctx, conversationId, 'suspend');
  }

  /** The platform restores a relation (`relation.restored` to the agent). */
  restoreRelation(conversationId: string): Promise<unknown> {
    return controlRelation(this.#ctx, conversationId, 'restore');
  }

  /**
   * Registers a webhook for an agent (a fresh secret unless given); closes its WebSocket.
   *
   * @throws {@link index!ConfigurationError | ConfigurationError} for an unknown agent.
   */
  async setWebhook(agentId: string, hook: { url: string; secret?: string }): Promise<ControlWebhook> {
    return (await controlWebhook(this.#ctx, agentId, hook))!;
  }

  /** Removes an agent's webhook (back to WebSocket mode). */
  async removeWebhook(agentId: string): Promise<void> {
    await controlWebhook(this.#ctx, agentId, null);
  }

  /** Seals `payload` from the system sender and sends it to the agent as an event of `type`. */
  sendSystemEvent(
    agentId: string,
    type: string,
    payload: Record<string, unknown> = {},
    conversationId?: string,
  ): Promise<SystemEventOutcome> {
    return controlSystemEvent(this.#ctx, agentId, type, payload, conversationId);
  }

  /** Signs a user in on a device without a password: "act as a user". */
  accessToken(
    userId: string,
    device: { deviceId?: string; deviceName?: string } = {},
  ): Promise<ControlAccessToken> {
    return controlAccessToken(this.#ctx, userId, device);
  }

  /**
   * The WebSocket connections the service holds open now for a user (any
   * device) or an agent: 0 once it noticed that every one of them closed.
   */
  openConnections(principalId: string): number {
    return this.#ctx.hub.connections(
      (c) =>
        c.state === 'open' &&
        ((c.principal?.kind === 'user' && c.principal.userId === principalId) ||
          (c.principal?.kind === 'agent' && c.principal.agentId === principalId)),
    ).length;
  }

  /** Resolves once no webhook delivery attempt is in flight. */
  deliveryIdle(): Promise<void> {
    return this.#ctx.delivery.idle();
  }

  /**
   * Resolves once no webhook attempt is in flight and no WebSocket delivery
   * waits for its ack (bounded by `timeoutMs` of real time, default 2 s): the
   * delivery logs then hold every final status.
   */
  deliverySettled(timeoutMs?: number): Promise<void> {
    return this.#ctx.delivery.settled(timeoutMs);
  }

  /**
   * The bcrypt cost of the agent's current token hash (the hash itself never
   * leaves the server), or undefined without a token.
   */
  async agentTokenCost(agentId: string): Promise<number | undefined> {
    const agent = await this.#ctx.store.agents.get(agentId);
    const hash = agent?.tokens.find((t) => t.validUntilMs === undefined)?.hash;
    const m = hash === undefined ? null : /^\$2[aby]\$(\d{2})\$/.exec(hash);
    return m === null ? undefined : Number(m[1]);
  }

  /** Bcrypt comparisons run so far for agent tokens (the fast path makes this stay put). */
  get agentTokenBcryptChecks(): number {
    return this.#ctx.agentTokens.bcryptChecks;
  }

  #devTurnstile() {
    const t = this.#ctx.devTurnstile;
    if (t === undefined) {
      throw new ConfigurationError({ option: 'turnstile', message: 'A custom Turnstile verifier is set.' });
    }
    return t;
  }
}
