/**
 * Starting the reference server: core + node:http + ws on one port.
 *
 * @module
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Clock, ManualClock } from 'agent-messaging-sdk/protocol';
import { ConfigurationError } from 'agent-messaging-sdk/protocol';
import { createRequestHandler } from './app.js';
import { preloadJose } from './auth/access-token.js';
import { createServerContext } from './create-context.js';
import { openDataDir } from './data-dir.js';
import { ControlApi } from './control/control-api.js';
import { createNodeListener } from './node/http-binding.js';
import { closeFileObjects } from './files/file-objects.js';
import { attachWebSockets } from './node/ws-binding.js';
import type { ReferenceServerOptions } from './options.js';
import { buildRouter } from './routes.js';
import { bodyLimitOf } from './http/router.js';
import { WS_PATH } from './ws/frames.js';
import { CONSOLE_PATH } from './console/page.js';
import { servesConsole } from './console/routes.js';
import { registerUserSessions } from './ws/user-sessions.js';
import { registerAgentSessions } from './agents/agent-sessions.js';
import { registerStreamFrames } from './streams/ws-handlers.js';

/** A running reference server. */
export interface ReferenceServer {
  /** Base URL, e.g. `http://127.0.0.1:41234` (no trailing slash). */
  readonly url: string;
  /** WebSocket URL, e.g. `ws://127.0.0.1:41234/ws`. */
  readonly wsUrl: string;
  /**
   * The dev console's address, e.g. `http://127.0.0.1:41234/_console/`: set only
   * in dev mode on a loopback host (the only case the console is served).
   */
  readonly consoleUrl: string | undefined;
  /** The server's clock. */
  readonly clock: Clock;
  /** The clock when the server runs in virtual time, else undefined. */
  readonly virtualClock: ManualClock | undefined;
  /** In-process control: emailed codes, Turnstile policy, time, accounts. */
  readonly control: ControlApi;
  /**
   * Moves virtual time forward by `ms`, firing due timers.
   *
   * @throws {@link index!ConfigurationError | ConfigurationError} when not in virtual-time mode.
   */
  advanceTime(ms: number): void;
  /**
   * Simulates a restart with state kept (tests of reconnects): closes every
   * WebSocket (1001, frames already sent are flushed first) and HTTP
   * connection, stops listening, waits `downtimeMs` of real time (connection
   * attempts are refused meanwhile), then listens again on the same port with
   * the same in-memory state. Deliveries for disconnected agents stay queued.
   */
  restart(options?: { downtimeMs?: number }): Promise<void>;
  /** Closes every WebSocket (1001) and HTTP connection and stops listening. */
  close(): Promise<void>;
}

function listen(server: Server, port: number, host: string): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server.address() as AddressInfo);
    });
  });
}

function hostForUrl(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

/**
 * Starts the reference server: in-memory state, the service's REST endpoints
 * for human accounts, and the WebSocket hub at `/ws`.
 *
 * @throws {@link index!ConfigurationError | ConfigurationError} for a bad option or when the port cannot be bound.
 * @example
 * ```ts
 * import { startReferenceServer } from '@agent-messaging/dev/testing';
 *
 * const server = await startReferenceServer({ virtualTime: true, passwordHashing: { logN: 10 } });
 * // ... talk to server.url and server.wsUrl ...
 * server.advanceTime(301_000); // access tokens are now expired
 * await server.close();
 * ```
 */
export async function startReferenceServer(options: ReferenceServerOptions = {}): Promise<ReferenceServer> {
  const data = options.dataDir === undefined ? undefined : await openDataDir(options.dataDir);
  const ctx = createServerContext(options, data?.store, data?.persisted);
  const control = new ControlApi(ctx);
  registerUserSessions(ctx);
  registerAgentSessions(ctx);
  registerStreamFrames(ctx);
  const router = buildRouter(ctx, control);
  const handle = createRequestHandler(ctx, router);
  const bodyCap = (method: string, path: string): number => {
    const match = router.match(method, path);
    return match.kind === 'found' ? bodyLimitOf(match.route, ctx.options) : ctx.options.maxBodyBytes;
  };
  const streamed = (method: string, path: string): boolean => {
    const match = router.match(method, path);
    return match.kind === 'found' && match.route.streamBody;
  };
  const bind = (): { server: Server; sockets: ReturnType<typeof attachWebSockets> } => {
    const http = createServer(createNodeListener(handle, bodyCap, streamed));
    http.headersTimeout = 10_000;
    http.requestTimeout = 30_000;
    return { server: http, sockets: attachWebSockets(http, ctx.hub) };
  };
  let { server, sockets } = bind();
  const stop = (): Promise<void> =>
    new Promise<void>((resolve) => {
      ctx.hub.closeAll();
      sockets.close();
      server.close(() => resolve());
      server.closeAllConnections();
    });
  let address: AddressInfo;
  try {
    address = await listen(server, ctx.options.port, ctx.options.host);
  } catch (err) {
    const code = (err as { code?: unknown } | null)?.code;
    const hint =
      code === 'EADDRINUSE'
        ? ` Port ${ctx.options.port} is in use: try --port 0 (a free port) or stop the other process.`
        : code === 'EACCES'
          ? ` Port ${ctx.options.port} needs privileges: try a port above 1023, or --port 0.`
          : '';
    throw new ConfigurationError({
      option: 'port',
      message: `Cannot listen on ${ctx.options.host}:${ctx.options.port}.${hint}`,
      cause: err,
    });
  }
  const authority = `${hostForUrl(address.address)}:${address.port}`;
  ctx.baseUrl = `http://${authority}`;
  ctx.logger.info(
    `reference server listening on ${ctx.baseUrl}${ctx.options.dev ? ' (dev mode: control API on)' : ''}`,
  );
  // Load what the first requests need only after the server is ready.
  sockets.preload();
  preloadJose();
  let closing: Promise<void> | undefined;
  return {
    url: ctx.baseUrl,
    wsUrl: `ws://${authority}${WS_PATH}`,
    consoleUrl: servesConsole(ctx.options) ? `${ctx.baseUrl}${CONSOLE_PATH}` : undefined,
    clock: ctx.clock,
    virtualClock: ctx.virtualClock,
    control,
    advanceTime: (ms) => control.advanceTime(ms),
    async restart(options = {}) {
      if (closing !== undefined)
        throw new ConfigurationError({ option: 'restart', message: 'The server is closed.' });
      await stop();
      const downtimeMs = options.downtimeMs ?? 0;
      if (downtimeMs > 0) await new Promise((resolve) => setTimeout(resolve, downtimeMs));
      ({ server, sockets } = bind());
      await listen(server, address.port, address.address);
      sockets.preload();
    },
    close() {
      closing ??= stop()
        .then(() => ctx.delivery.close())
        .then(() => closeFileObjects(ctx));
      return closing;
    },
  };
}
