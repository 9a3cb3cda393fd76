/**
 * A `ws` WebSocket for the agent whose outgoing `stream.delta` / `stream.end`
 * frames pass through a fault function first: the frames still travel over
 * the real socket and the real server, so the human side sees exactly what a
 * misbehaving relay would deliver.
 */
import WebSocket from 'ws';

/** Rewrites one outgoing frame into zero or more frames (parsed JSON in, JSON objects out). */
export type FrameFault = (frame: Record<string, unknown>) => Record<string, unknown>[];

/** A WebSocket class whose stream frames go through `fault`; frames it receives are pushed to `inbound`. */
export function faultySocketClass(fault: FrameFault, inbound?: Record<string, unknown>[]): typeof WebSocket {
  return class FaultySocket extends WebSocket {
    constructor(...args: ConstructorParameters<typeof WebSocket>) {
      super(...args);
      if (inbound !== undefined)
        this.on('message', (data: Buffer) =>
          inbound.push(JSON.parse(data.toString()) as Record<string, unknown>),
        );
    }

    override send(data: unknown, ...rest: unknown[]): void {
      const text = typeof data === 'string' ? data : undefined;
      const frame = text === undefined ? undefined : (JSON.parse(text) as Record<string, unknown>);
      const type = frame?.['type'];
      if (frame === undefined || (type !== 'stream.delta' && type !== 'stream.end')) {
        (super.send as (...a: unknown[]) => void)(data, ...rest);
        return;
      }
      for (const out of fault(frame)) (super.send as (...a: unknown[]) => void)(JSON.stringify(out));
    }
  } as typeof WebSocket;
}

/** Flips one bit of a base64 value (still canonical base64). */
export function flipBit(b64: string): string {
  const bytes = Buffer.from(b64, 'base64');
  bytes[0] = bytes[0]! ^ 1;
  return bytes.toString('base64');
}
