/**
 * Starts each supported framework on 127.0.0.1:0 with the webhook receiver
 * mounted three ways: its normal route, a route where a JSON parser already
 * consumed the body, and (where the framework has one) a raw-body route.
 */
import { serve } from '@hono/node-server';
import express from 'express';
import express4 from 'express4';
import Fastify from 'fastify';
import { Hono } from 'hono';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createExpressMiddleware } from '../../../packages/sdk/src/webhook/express.js';
import { createFastifyHandler, createFastifyPlugin } from '../../../packages/sdk/src/webhook/fastify.js';
import { createFetchHandler } from '../../../packages/sdk/src/webhook/fetch.js';
import type { WebhookReceiver } from '../../../packages/sdk/src/webhook/index.js';
import { createNodeHandler } from '../../../packages/sdk/src/webhook/node.js';

export interface Running {
  url: string;
  close(): Promise<void>;
}

/** Paths each framework serves. `raw` is absent where the framework has no raw parser. */
export interface Routes {
  webhook: string;
  parsed: string;
  raw?: string;
}

function listen(server: Server): Promise<Running> {
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${port}`,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}

export const ROUTES: Routes = { webhook: '/webhook', parsed: '/parsed', raw: '/raw' };

type Express = typeof express;

function expressApp(e: Express, receiver: WebhookReceiver): Server {
  const app = e();
  const mw = createExpressMiddleware(receiver);
  app.post('/webhook', mw);
  app.post('/raw', e.raw({ type: '*/*', limit: '2mb' }), mw);
  app.post('/parsed', e.json(), mw);
  return createServer(app);
}

export const FRAMEWORKS: Record<string, (receiver: WebhookReceiver) => Promise<Running>> = {
  'node:http': (receiver) => {
    const handle = createNodeHandler(receiver);
    return listen(
      createServer((req, res) => {
        if (req.url === '/parsed') {
          // Something else read the body first.
          req.on('data', () => undefined);
          req.on('end', () => void handle(req, res));
          return;
        }
        void handle(req, res);
      }),
    );
  },
  'express 5': (receiver) => listen(expressApp(express, receiver)),
  'express 4': (receiver) => listen(expressApp(express4, receiver)),
  fastify: async (receiver) => {
    const app = Fastify();
    await app.register(createFastifyPlugin(receiver, { path: '/webhook' }));
    app.post('/parsed', createFastifyHandler(receiver));
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as AddressInfo;
    return { url: `http://127.0.0.1:${port}`, close: () => app.close() };
  },
  'hono (fetch)': (receiver) => {
    const handle = createFetchHandler(receiver);
    const app = new Hono();
    app.post('/webhook', (c) => handle(c.req.raw));
    app.post('/parsed', async (c) => {
      await c.req.json();
      return handle(c.req.raw);
    });
    return new Promise((resolve) => {
      const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => {
        resolve({
          url: `http://127.0.0.1:${info.port}`,
          close: () => new Promise<void>((done) => server.close(() => done())),
        });
      });
    });
  },
};
