/**
 * Where verification codes go. The reference server sends no real email: by
 * default every code lands in an in-memory {@link DevMailbox}, readable only
 * through the dev/test control API. A {@link Mailer} option replaces it.
 *
 * @module
 */
import type { CodeScene } from '../store/types.js';

/** One "sent" verification email. */
export interface VerificationEmail {
  /** Normalised recipient address. */
  readonly to: string;
  readonly scene: CodeScene;
  /** The 6-digit code. A secret: only the dev control API may reveal it. */
  readonly code: string;
  readonly sentAtMs: number;
  readonly expiresAtMs: number;
}

/** Delivers a verification email. Must not log the code. */
export type Mailer = (email: VerificationEmail) => void | Promise<void>;

/** Emails kept per address in the dev mailbox. */
export const MAILBOX_DEPTH = 20;

/** An in-memory mailbox: the default {@link Mailer} of the reference server. */
export class DevMailbox {
  readonly #byAddress = new Map<string, VerificationEmail[]>();

  /** The {@link Mailer} that files emails here. */
  readonly deliver: Mailer = (email) => {
    const list = this.#byAddress.get(email.to) ?? [];
    list.unshift(email);
    list.length = Math.min(list.length, MAILBOX_DEPTH);
    this.#byAddress.set(email.to, list);
  };

  /** Emails sent to `address` (normalised), newest first, optionally of one scene. */
  messages(address: string, scene?: CodeScene): readonly VerificationEmail[] {
    const list = this.#byAddress.get(address) ?? [];
    return scene === undefined ? [...list] : list.filter((m) => m.scene === scene);
  }

  /** Forgets every email. */
  clear(): void {
    this.#byAddress.clear();
  }
}
