/**
 * A relay in the middle, for tests: an HTTP proxy on 127.0.0.1 (real
 * sockets) in front of the reference server that can rewrite JSON request
 * and response bodies, as a compromised service could.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Rewrites one JSON body; return it unchanged to pass it through. */
export type JsonRewrite = (method: string, path: string, json: unknown) => unknown;

/** A running proxy. */
export interface TamperProxy {
  readonly url: string;
  /** Applied to JSON request bodies. */
  onRequest: JsonRewrite | undefined;
  /** Applied to JSON response bodies. */
  onResponse: JsonRewrite | undefined;
  close(): Promise<void>;
}

async function bodyOf(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

function rewriteJson(raw: Buffer, rewrite: JsonRewrite | undefined, method: string, path: string): Buffer {
  if (rewrite === undefined || raw.length === 0) return raw;
  return Buffer.from(JSON.stringify(rewrite(method, path, JSON.parse(raw.toString('utf8')))));
}

/** Starts a proxy to `upstream`. */
export async function startTamperProxy(upstream: string): Promise<TamperProxy> {
  const proxy: TamperProxy = {
    url: '',
    onRequest: undefined,
    onResponse: undefined,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  const server: Server = createServer((req, res) => {
    void (async () => {
      const method = req.method ?? 'GET';
      const path = req.url ?? '/';
      const raw = await bodyOf(req);
      const headers = new Headers();
      for (const [k, v] of Object.entries(req.headers)) {
        if (v === undefined || k === 'host' || k === 'content-length' || k === 'connection') continue;
        headers.set(k, Array.isArray(v) ? v.join(', ') : v);
      }
      const body = rewriteJson(raw, proxy.onRequest, method, path);
      const answer = await fetch(upstream + path, {
        method,
        headers,
        ...(body.length === 0 ? {} : { body: new Uint8Array(body) }),
      });
      const out = rewriteJson(Buffer.from(await answer.arrayBuffer()), proxy.onResponse, method, path);
      const outHeaders: Record<string, string | string[]> = {};
      answer.headers.forEach((v, k) => {
        if (
          k !== 'content-length' &&
          k !== 'content-encoding' &&
          k !== 'transfer-encoding' &&
          k !== 'set-cookie'
        )
          outHeaders[k] = v;
      });
      const cookies = answer.headers.getSetCookie();
      if (cookies.length > 0) outHeaders['set-cookie'] = cookies;
      res.writeHead(answer.status, { ...outHeaders, 'content-length': String(out.length) });
      res.end(out);
    })().catch(() => {
      res.writeHead(502).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  (proxy as { url: string }).url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return proxy;
}
