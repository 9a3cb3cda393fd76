/**
 * A node:http server on 127.0.0.1:0 for REST client tests. It records every
 * request (method, target, headers, and the raw request head as received on
 * the socket) and answers through a handler the test sets.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as the server saw it. */
export interface SeenRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}

/** A staged HTTP server. */
export interface StagedHttpServer {
  readonly url: string;
  readonly seen: SeenRequest[];
  /** Everything received on any socket, as latin1 text (request heads and bodies). */
  readonly raw: () => string;
  handler: (req: IncomingMessage, res: ServerResponse, body: string) => void;
  close(): Promise<void>;
}

/** Starts a server on 127.0.0.1, port 0. */
export async function stageHttpServer(): Promise<StagedHttpServer> {
  let raw = '';
  const seen: SeenRequest[] = [];
  const staged: StagedHttpServer = {
    url: '',
    seen,
    raw: () => raw,
    handler: (_req: IncomingMessage, res: ServerResponse): void => {
      res.writeHead(404).end();
    },
    close: () => Promise.resolve(),
  };
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      staged.handler(req, res, body);
    });
  });
  server.on('connection', (socket) =>
    socket.on('data', (chunk: Buffer) => (raw += chunk.toString('latin1'))),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return Object.assign(staged, {
    url: `http://127.0.0.1:${port}`,
    close: async (): Promise<void> => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  });
}

/** Writes a JSON answer. */
export function json(
  res: ServerResponse,
  status: number,
  value: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(value));
}
