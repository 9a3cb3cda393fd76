/**
 * Streamed replies in the console: the same checks as the SDK's
 * `StreamReceiver` (stream v2: key envelope bound to the stream, deltas
 * strictly in order and sealed under the stream key, and nothing shown
 * before the agent's signature — a checkpoint, the end or the abort — covers
 * it over the keyed hash chain), on primitives a browser has. WebCrypto has
 * no synchronous AES-GCM, so each stream's frames are handled one after the
 * other on a promise chain; the chain hash runs on `@noble/hashes`
 * (synchronous, already bundled).
 *
 * @module
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { fromBase64, fromUtf8 } from 'agent-messaging-sdk/protocol';
import { STREAM_FRAMES } from 'agent-messaging-sdk/protocol';
import { parseUserStreamFrame, type UserStreamFrame } from 'agent-messaging-sdk/protocol';
import { portableBackend } from 'agent-messaging-sdk/protocol';
import { constantTimeEqual } from 'agent-messaging-sdk/protocol';
import {
  STREAM_CHECKPOINT_MAX_DELTAS,
  STREAM_CRYPTO_VERSION,
  StreamChain,
  streamOpenerAsync,
  streamSignedMessage,
  unframeStreamAbort,
  unframeStreamDelta,
  type AsyncStreamOpener,
  type StreamHashPrimitives,
  type StreamSignedKind,
} from 'agent-messaging-sdk/protocol';
import { streamKeyOf } from 'agent-messaging-sdk/protocol';
import { StreamPartsReader, type StreamPart } from 'agent-messaging-sdk/protocol';

/** How a stream shows in the page. */
export interface StreamView {
  /** The key opened: a bubble appears for the stream. */
  started(streamId: string, conversationId: string): void;
  /** One more delta, signed by the agent: the text so far, and its typed parts in order (#26). */
  grew(streamId: string, text: string, parts: readonly StreamPart[]): void;
  /** The end verified (seq, transcript, signature). */
  ended(streamId: string, text: string, deltas: number, parts: readonly StreamPart[]): void;
  /** Broken, forged, aborted, or ended by the service: why, and the signed text and parts so far. */
  failed(streamId: string, why: string, text: string, parts: readonly StreamPart[]): void;
}

/** What the stream handling needs from the page. */
export interface StreamDeps {
  /** Opens the `stream.start` key envelope (signature checked). */
  open(wire: string): Promise<{
    conversationId: string;
    senderId: string;
    messageId: string;
    payload: Readonly<Record<string, unknown>>;
  }>;
  signingKey(id: string): Promise<Uint8Array | undefined>;
  readonly view: StreamView;
}

/** `@noble/hashes` SHA-256 for the chain (no synchronous WebCrypto hash). */
const NOBLE_HASH: StreamHashPrimitives = {
  sha256: (d) => sha256(d),
  sha256Incremental: () => sha256.create(),
};

interface Live {
  work: Promise<void>;
  opener?: AsyncStreamOpener;
  signingKey?: Uint8Array;
  chain?: StreamChain;
  /** Seq of the last delta received. */
  seq: number;
  /** Texts not yet covered by a signature. */
  unsigned: string[];
  text: string;
  /** Reads typed parts when the signed start says `parts` (#26); undefined: plain text. */
  reader?: StreamPartsReader;
  done: boolean;
}

class Broken extends Error {}

/** The parts shown so far: the reader's, or the plain text as one part. */
function partsOf(live: Live): readonly StreamPart[] {
  if (live.reader !== undefined) return live.reader.parts;
  return live.text.length === 0 ? [] : [{ type: 'text', text: live.text }];
}

/** The streams of the page's user WebSocket. */
export class ConsoleStreams {
  readonly #d: StreamDeps;
  readonly #live = new Map<string, Live>();

  constructor(deps: StreamDeps) {
    this.#d = deps;
  }

  /** True for a `stream.*` frame (taken here, not by the message path). */
  static isStreamFrame(raw: Readonly<Record<string, unknown>>): boolean {
    return typeof raw['type'] === 'string' && raw['type'].startsWith('stream.');
  }

  /** Takes one frame as received; frames of a stream are handled in order. */
  receive(raw: Readonly<Record<string, unknown>>): void {
    const frame = parseUserStreamFrame(raw);
    if (frame === undefined) return;
    let live = this.#live.get(frame.stream_id);
    if (frame.type === STREAM_FRAMES.start) {
      if (live !== undefined) return;
      live = { work: Promise.resolve(), seq: 0, unsigned: [], text: '', done: false };
      this.#live.set(frame.stream_id, live);
    }
    if (live === undefined || live.done) return;
    const l = live;
    l.work = l.work.then(() => this.#handle(l, frame)).catch((err: unknown) => this.#fail(l, frame, err));
  }

  #fail(live: Live, frame: UserStreamFrame, err: unknown): void {
    if (live.done) return;
    live.done = true;
    const why = err instanceof Error ? err.message : String(err);
    this.#d.view.failed(frame.stream_id, why, live.text, partsOf(live));
  }

  /** True when `signature` is the agent's over (kind, stream, seq, H_seq[, reason]). */
  async #signed(
    live: Live,
    kind: StreamSignedKind,
    id: string,
    signature: Uint8Array,
    reason?: Uint8Array,
  ): Promise<boolean> {
    const message = streamSignedMessage(kind, id, live.seq, live.chain!.hash, NOBLE_HASH, reason);
    return portableBackend.async.ed25519Verify(live.signingKey!, message, signature);
  }

  /** Shows the texts a verified signature now covers. */
  #release(live: Live, id: string): void {
    if (live.unsigned.length === 0) return;
    const added = live.unsigned.splice(0).join('');
    if (live.reader === undefined) live.text += added;
    else {
      live.reader.push(added);
      live.text = live.reader.text;
    }
    this.#d.view.grew(id, live.text, partsOf(live));
  }

  async #handle(live: Live, frame: UserStreamFrame): Promise<void> {
    if (live.done) return;
    const id = frame.stream_id;
    switch (frame.type) {
      case STREAM_FRAMES.start: {
        const opened = await this.#d.open(frame.wire_envelope).catch(() => {
          throw new Broken('invalid_start: the key envelope did not open');
        });
        const key = streamKeyOf(opened, id);
        if (key === undefined || opened.conversationId !== frame.conversation_id)
          throw new Broken('invalid_start: not a stream.open of this stream');
        if (opened.payload['v'] !== STREAM_CRYPTO_VERSION)
          throw new Broken('invalid_start: not a signed stream (stream v2)');
        const parts = opened.payload['parts'];
        if (typeof parts === 'number' && Number.isSafeInteger(parts) && parts >= 1)
          live.reader = new StreamPartsReader();
        live.opener = await streamOpenerAsync(key, id, portableBackend.async);
        live.chain = new StreamChain(live.opener.chainStart, NOBLE_HASH);
        const signingKey = await this.#d.signingKey(opened.senderId);
        if (signingKey === undefined) throw new Broken('invalid_start: the sender has no signing key');
        live.signingKey = signingKey;
        this.#d.view.started(id, frame.conversation_id);
        return;
      }
      case STREAM_FRAMES.delta: {
        const expected = live.seq + 1;
        if (frame.seq !== expected)
          throw new Broken(`out_of_order: delta ${frame.seq}, expected ${expected}`);
        const sealed = fromBase64(frame.ciphertext)!;
        const framed = await live.opener!.openDelta(frame.seq, sealed);
        const parts = framed === undefined ? undefined : unframeStreamDelta(framed);
        const text = parts === undefined ? undefined : fromUtf8(parts.text);
        if (parts === undefined || text === undefined)
          throw new Broken(`tampered: delta ${frame.seq} does not authenticate`);
        live.seq = frame.seq;
        live.chain!.add(frame.seq, parts.text);
        live.unsigned.push(text);
        if (parts.signature === undefined) {
          if (live.unsigned.length >= STREAM_CHECKPOINT_MAX_DELTAS)
            throw new Broken('tampered: too many deltas without a checkpoint');
          return;
        }
        if (!(await this.#signed(live, 'checkpoint', id, parts.signature)))
          throw new Broken(`bad_signature: delta ${frame.seq} is not signed by the sender`);
        this.#release(live, id);
        return;
      }
      case STREAM_FRAMES.end: {
        if (frame.final_seq !== live.seq)
          throw new Broken(`truncated: the end counts ${frame.final_seq} deltas, ${live.seq} arrived`);
        const hash = fromBase64(frame.transcript_hash)!;
        if (!constantTimeEqual(hash, live.chain!.hash)) throw new Broken('tampered: transcript differs');
        if (!(await this.#signed(live, 'end', id, fromBase64(frame.signature)!)))
          throw new Broken('bad_signature: the end is not signed by the sender');
        this.#release(live, id);
        live.reader?.finish();
        live.done = true;
        this.#d.view.ended(id, live.text, frame.final_seq, partsOf(live));
        return;
      }
      case STREAM_FRAMES.abort: {
        const framed = await live.opener!.openAbort(live.seq, fromBase64(frame.ciphertext)!);
        const parts = framed === undefined ? undefined : unframeStreamAbort(framed);
        if (parts === undefined) throw new Broken('tampered: abort');
        if (!(await this.#signed(live, 'aborted', id, parts.signature, parts.reason)))
          throw new Broken('bad_signature: the abort is not signed by the sender');
        this.#release(live, id);
        throw new Broken(`aborted: ${fromUtf8(parts.reason) ?? ''}`);
      }
      case STREAM_FRAMES.error:
        throw new Broken(frame.reason);
    }
  }
}
