/**
 * Streamed replies in the console: the same checks as the SDK's
 * `StreamReceiver` (key envelope bound to the stream, deltas strictly in
 * order and authenticated, end signed over the transcript), on primitives a
 * browser has. WebCrypto has no synchronous AES-GCM, so each stream's frames
 * are handled one after the other on a promise chain; the transcript hash
 * runs on `@noble/hashes` (synchronous, already bundled).
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
  streamEndMessage,
  streamOpenerAsync,
  StreamTranscript,
  type AsyncStreamOpener,
  type StreamHashPrimitives,
} from 'agent-messaging-sdk/protocol';
import { streamKeyOf } from 'agent-messaging-sdk/protocol';

/** How a stream shows in the page. */
export interface StreamView {
  /** The key opened: a bubble appears for the stream. */
  started(streamId: string, conversationId: string): void;
  /** One more delta: the text so far. */
  grew(streamId: string, text: string): void;
  /** The end verified (seq, transcript, signature). */
  ended(streamId: string, text: string, deltas: number): void;
  /** Broken, aborted, or ended by the service: why, and the text so far. */
  failed(streamId: string, why: string, text: string): void;
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

/** `@noble/hashes` SHA-256 for the transcript (no synchronous WebCrypto hash). */
const NOBLE_HASH: StreamHashPrimitives = {
  sha256: (d) => sha256(d),
  sha256Incremental: () => sha256.create(),
};

interface Live {
  chain: Promise<void>;
  opener?: AsyncStreamOpener;
  signingKey?: Uint8Array;
  transcript: StreamTranscript;
  text: string;
  done: boolean;
}

class Broken extends Error {}

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
      live = {
        chain: Promise.resolve(),
        transcript: new StreamTranscript(frame.stream_id, NOBLE_HASH),
        text: '',
        done: false,
      };
      this.#live.set(frame.stream_id, live);
    }
    if (live === undefined || live.done) return;
    const l = live;
    l.chain = l.chain.then(() => this.#handle(l, frame)).catch((err: unknown) => this.#fail(l, frame, err));
  }

  #fail(live: Live, frame: UserStreamFrame, err: unknown): void {
    if (live.done) return;
    live.done = true;
    this.#d.view.failed(frame.stream_id, err instanceof Error ? err.message : String(err), live.text);
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
        live.opener = await streamOpenerAsync(key, id, portableBackend.async);
        const signingKey = await this.#d.signingKey(opened.senderId);
        if (signingKey === undefined) throw new Broken('invalid_start: the sender has no signing key');
        live.signingKey = signingKey;
        this.#d.view.started(id, frame.conversation_id);
        return;
      }
      case STREAM_FRAMES.delta: {
        const expected = live.transcript.seq + 1;
        if (frame.seq !== expected)
          throw new Broken(`out_of_order: delta ${frame.seq}, expected ${expected}`);
        const sealed = fromBase64(frame.ciphertext)!;
        const plain = await live.opener!.openDelta(frame.seq, sealed);
        const text = plain === undefined ? undefined : fromUtf8(plain);
        if (text === undefined) throw new Broken(`tampered: delta ${frame.seq} does not authenticate`);
        live.transcript.add(frame.seq, sealed);
        live.text += text;
        this.#d.view.grew(id, live.text);
        return;
      }
      case STREAM_FRAMES.end: {
        if (frame.final_seq !== live.transcript.seq)
          throw new Broken(
            `truncated: the end counts ${frame.final_seq} deltas, ${live.transcript.seq} arrived`,
          );
        const hash = fromBase64(frame.transcript_hash)!;
        if (!constantTimeEqual(hash, live.transcript.hash)) throw new Broken('tampered: transcript differs');
        const message = streamEndMessage(id, frame.final_seq, hash, NOBLE_HASH);
        const signature = fromBase64(frame.signature)!;
        if (!(await portableBackend.async.ed25519Verify(live.signingKey!, message, signature)))
          throw new Broken('bad_signature: the end is not signed by the sender');
        live.done = true;
        this.#d.view.ended(id, live.text, frame.final_seq);
        return;
      }
      case STREAM_FRAMES.abort: {
        const reason = await live.opener!.openAbort(live.transcript.seq, fromBase64(frame.ciphertext)!);
        throw new Broken(reason === undefined ? 'tampered: abort' : `aborted: ${fromUtf8(reason) ?? ''}`);
      }
      case STREAM_FRAMES.error:
        throw new Broken(frame.reason);
    }
  }
}
