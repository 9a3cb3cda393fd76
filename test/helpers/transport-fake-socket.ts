/**
 * An in-memory WebSocket for connection and dispatcher unit tests: the test
 * plays the server by calling `open()`, `message()`, `serverClose()` etc.
 */
import type { WebSocketConstructor, WebSocketLike } from '../../packages/sdk/src/transport/ws/index.js';

type Listener = (event: unknown) => void;

/** Behaviour switches of a fake socket class. */
export interface FakeSocketOptions {
  /** Offer `ping`, `terminate` and `on('pong')` like `ws`. @defaultValue true */
  wsExtras?: boolean;
  /** `close()` completes the handshake at once (emits `close`). @defaultValue true */
  closeCompletes?: boolean;
  /** The constructor throws (e.g. a bad URL). @defaultValue false */
  throwOnCreate?: boolean;
}

/** One fake socket. */
export class FakeSocket {
  readonly url: string;
  readonly sent: string[] = [];
  pings = 0;
  terminated = false;
  closeCalls: { code: number | undefined; reason: string | undefined }[] = [];
  closed = false;
  readonly #listeners = new Map<string, Listener[]>();
  readonly #options: Required<FakeSocketOptions>;
  ping?: () => void;
  terminate?: () => void;
  on?: (event: 'pong' | 'ping', listener: () => void) => unknown;

  constructor(url: string, options: Required<FakeSocketOptions>) {
    this.url = url;
    this.#options = options;
    if (options.wsExtras) {
      this.ping = () => void (this.pings += 1);
      this.terminate = () => {
        this.terminated = true;
        this.#emitClose(1006, '');
      };
      this.on = (event, listener) => this.#add(event, listener);
    }
  }

  addEventListener(type: string, listener: Listener): void {
    this.#add(type, listener);
  }

  send(data: string): void {
    if (this.closed) throw new Error('closed');
    this.sent.push(data);
  }

  close(code?: number, reason?: string): void {
    this.closeCalls.push({ code, reason });
    if (this.#options.closeCompletes) this.#emitClose(code ?? 1005, reason ?? '');
  }

  // ---- the test plays the server ----
  open(): void {
    this.#emit('open', {});
  }
  message(data: unknown): void {
    this.#emit('message', {
      data:
        typeof data === 'object' && data !== null && !(data instanceof Uint8Array)
          ? JSON.stringify(data)
          : data,
    });
  }
  pong(): void {
    this.#emit('pong', {});
  }
  error(): void {
    this.#emit('error', new Error('boom'));
  }
  serverClose(code: number, reason = ''): void {
    this.#emitClose(code, reason);
  }
  /** Parsed frames the client sent. */
  frames(): Record<string, unknown>[] {
    return this.sent.map((s) => JSON.parse(s) as Record<string, unknown>);
  }

  #add(type: string, listener: Listener): void {
    const list = this.#listeners.get(type) ?? [];
    list.push(listener);
    this.#listeners.set(type, list);
  }
  #emit(type: string, event: unknown): void {
    for (const l of this.#listeners.get(type) ?? []) l(event);
  }
  #emitClose(code: number, reason: string): void {
    if (this.closed) return;
    this.closed = true;
    this.#emit('close', { code, reason });
  }
}

/** A constructor producing fake sockets, and every socket it made. */
export function fakeSocketClass(options: FakeSocketOptions = {}): {
  ctor: WebSocketConstructor;
  sockets: FakeSocket[];
} {
  const resolved: Required<FakeSocketOptions> = {
    wsExtras: true,
    closeCompletes: true,
    throwOnCreate: false,
    ...options,
  };
  const sockets: FakeSocket[] = [];
  const ctor = function (this: unknown, url: string): WebSocketLike {
    if (resolved.throwOnCreate) throw new SyntaxError('bad url');
    const s = new FakeSocket(url, resolved);
    sockets.push(s);
    return s as unknown as WebSocketLike;
  } as unknown as WebSocketConstructor;
  return { ctor, sockets };
}
