/**
 * The chaos tests' ledger: which numbered messages were sent and which were
 * handled, in what order, and the verdict — lost, handled twice, out of
 * order within a conversation — with the first few ids of each for a
 * readable failure.
 */

/** `c2#0137`: conversation 2, its message 137. */
const ID = /^c(\d+)#(\d+)$/;

/** The id of message `seq` of conversation `conv`, as sent in the text. */
export function messageText(conv: number, seq: number): string {
  return `c${conv}#${String(seq).padStart(4, '0')}`;
}

/** Exact counts of a chaos run. */
export interface ChaosCounts {
  /** Messages the user side sent (accepted by the server). */
  readonly sent: number;
  /** Distinct sent messages the agent handled. */
  readonly handled: number;
  /** Sent messages never handled. */
  readonly lost: number;
  /** Messages handled more than once (each counted once). */
  readonly duplicated: number;
  /** Handlings of a message after a later message of its conversation. */
  readonly outOfOrder: number;
}

/** The verdict of a run: counts plus the first ids behind each. */
export interface ChaosReport {
  readonly counts: ChaosCounts;
  readonly lost: readonly string[];
  readonly duplicated: readonly string[];
  readonly outOfOrder: readonly string[];
  /** One readable paragraph: counts and up to `SHOWN` ids of each problem. */
  readonly summary: string;
}

/** How many ids of each problem a summary shows. */
const SHOWN = 8;

/** Counts sent and handled messages by conversation and judges the run. */
export class ChaosRecorder {
  readonly #sent: Set<string>[];
  readonly #handled: number[][];
  readonly #times = new Map<string, number>();
  #handledTotal = 0;
  #strays: string[] = [];

  constructor(readonly conversations: number) {
    this.#sent = Array.from({ length: conversations }, () => new Set<string>());
    this.#handled = Array.from({ length: conversations }, () => []);
  }

  /** The server accepted message `seq` of conversation `conv`. */
  sent(conv: number, seq: number): void {
    this.#sent[conv]!.add(messageText(conv, seq));
  }

  /** The agent's handler ran for a message with this text. Texts that are no chaos ids are kept as strays. */
  handled(text: string | undefined): void {
    const m = ID.exec(text ?? '');
    const conv = m === null ? -1 : Number(m[1]);
    if (m === null || conv >= this.conversations) {
      this.#strays.push(String(text));
      return;
    }
    this.#handledTotal++;
    this.#handled[conv]!.push(Number(m[2]));
    this.#times.set(text!, (this.#times.get(text!) ?? 0) + 1);
  }

  /** Total handler calls recorded (duplicates included). */
  get handledCalls(): number {
    return this.#handledTotal;
  }

  /** Distinct messages handled so far. */
  get distinctHandled(): number {
    return this.#times.size;
  }

  /** Messages sent so far. */
  get sentCount(): number {
    return this.#sent.reduce((n, s) => n + s.size, 0);
  }

  /** The verdict now. */
  report(): ChaosReport {
    const lost: string[] = [];
    const outOfOrder: string[] = [];
    for (let conv = 0; conv < this.conversations; conv++) {
      for (const id of this.#sent[conv]!) if (!this.#times.has(id)) lost.push(id);
      let highest = -1;
      for (const seq of this.#handled[conv]!) {
        if (seq < highest) outOfOrder.push(`${messageText(conv, seq)} after ${messageText(conv, highest)}`);
        highest = Math.max(highest, seq);
      }
    }
    const duplicated = [...this.#times].filter(([, n]) => n > 1).map(([id, n]) => `${id}×${n}`);
    const counts: ChaosCounts = {
      sent: this.sentCount,
      handled: [...this.#times.keys()].filter((id) => this.#sent[Number(ID.exec(id)![1])]!.has(id)).length,
      lost: lost.length,
      duplicated: duplicated.length,
      outOfOrder: outOfOrder.length,
    };
    return {
      counts,
      lost,
      duplicated,
      outOfOrder,
      summary: summarize(counts, lost, duplicated, outOfOrder, this.#strays),
    };
  }
}

function summarize(
  counts: ChaosCounts,
  lost: readonly string[],
  duplicated: readonly string[],
  outOfOrder: readonly string[],
  strays: readonly string[],
): string {
  const part = (label: string, ids: readonly string[]): string =>
    ids.length === 0
      ? `0 ${label}`
      : `${ids.length} ${label} (${ids.slice(0, SHOWN).join(', ')}${ids.length > SHOWN ? ', …' : ''})`;
  const lines = [
    `sent ${counts.sent}, handled ${counts.handled}`,
    part('lost', lost),
    part('handled twice or more', duplicated),
    part('out of order', outOfOrder),
  ];
  if (strays.length > 0) lines.push(part('unexpected texts', strays));
  return lines.join('; ');
}
