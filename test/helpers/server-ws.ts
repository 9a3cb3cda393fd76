/**
 * A WebSocket probe for the reference server: records every frame and the
 * close, and lets a test wait for them. Waits use a real-time failsafe only
 * (no timing assertions).
 */
import WebSocket from 'ws';

/** A received frame. */
export type Frame = Record<string, unknown> & { type: string };

const FAILSAFE_MS = 5_000;

/** An open test connection. */
export class WsProbe {
  readonly frames: Frame[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;
  readonly #socket: WebSocket;
  #waiters: (() => void)[] = [];

  private constructor(socket: WebSocket) {
    this.#socket = socket;
    socket.on('message', (data) => {
      this.frames.push(JSON.parse(String(data)) as Frame);
      for (const w of this.#waiters.splice(0)) w();
    });
    this.closed = new Promise((resolve) => {
      socket.on('close', (code, reason) => {
        resolve({ code, reason: reason.toString('utf8') });
        for (const w of this.#waiters.splice(0)) w();
      });
    });
  }

  /** Connects to `url`; resolves once open. */
  static open(url: string): Promise<WsProbe> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(url);
      const probe = new WsProbe(socket);
      socket.once('open', () => resolve(probe));
      socket.once('error', reject);
    });
  }

  /** Connects and authenticates as a user; resolves after `auth.ok`. */
  static async authenticated(url: string, accessToken: string): Promise<WsProbe> {
    const probe = await WsProbe.open(url);
    probe.send({ type: 'auth', access_token: accessToken });
    const ok = await probe.next();
    if (ok.type !== 'auth.ok') throw new Error(`expected auth.ok, got ${JSON.stringify(ok)}`);
    return probe;
  }

  /** Sends an object as JSON, or a string / bytes as-is. */
  send(frame: object | string | Uint8Array): void {
    this.#socket.send(
      typeof frame === 'string' || frame instanceof Uint8Array ? frame : JSON.stringify(frame),
    );
  }

  /** True while the socket is open. */
  get isOpen(): boolean {
    return this.#socket.readyState === WebSocket.OPEN;
  }

  /** Waits for the frame number `index` (0-based) of all received. */
  async frame(index: number): Promise<Frame> {
    const deadline = Date.now() + FAILSAFE_MS;
    while (this.frames.length <= index) {
      if (this.#socket.readyState === WebSocket.CLOSED) throw new Error(`closed before frame ${index}`);
      if (Date.now() > deadline) throw new Error(`no frame ${index} within the failsafe`);
      await new Promise<void>((resolve) => {
        this.#waiters.push(resolve);
        setTimeout(resolve, 50);
      });
    }
    return this.frames[index]!;
  }

  #read = 0;

  /** The next frame not yet returned by `next`. */
  async next(): Promise<Frame> {
    const f = await this.frame(this.#read);
    this.#read += 1;
    return f;
  }

  /** Waits for the close. */
  async waitClosed(): Promise<{ code: number; reason: string }> {
    return Promise.race([
      this.closed,
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error('not closed within the failsafe')), FAILSAFE_MS),
      ),
    ]);
  }

  /** Closes from the client side. */
  close(): void {
    this.#socket.close();
  }

  /** Lets in-flight frames arrive: a round trip through the server. */
  async settle(): Promise<void> {
    const pong = new Promise<void>((resolve) => this.#socket.once('pong', () => resolve()));
    this.#socket.ping();
    await pong;
  }
}
