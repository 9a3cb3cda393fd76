/**
 * A newcomer's wrong address is answered by one line that names the URL
 * tried and the likely fix, over real sockets: an Agent whose baseUrl is a
 * web server (HTML 404), one whose baseUrl speaks another protocol, and
 * `ams dev bootstrap` with no server at all.
 */
import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent } from '../../../packages/sdk/src/agent/index.js';
import { isTransportError } from '../../../packages/sdk/src/core/errors/index.js';
import { MemoryKeyStore } from '../../../packages/sdk/src/crypto/index.js';
import { runCli } from '../../../packages/dev/src/cli/run.js';
import { captureIo } from '../../unit/cli/helpers.js';

const TOKEN = `hsk_${'x9Y8'.repeat(10)}`;

function listen(server: net.Server): Promise<string> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve(`http://127.0.0.1:${(server.address() as net.AddressInfo).port}`),
    ),
  );
}

function agentAt(baseUrl: string): Agent {
  return new Agent({
    baseUrl,
    agentId: 'agent-1',
    token: TOKEN,
    keyStore: new MemoryKeyStore(),
    logger: false,
    shutdownSignals: false,
  });
}

describe('a wrong address says which URL was tried and what to check', () => {
  const webPage = http.createServer((_req, res) => {
    res.writeHead(404, { 'content-type': 'text/html' });
    res.end('<html><body><h1>Not Found</h1></body></html>');
  });
  const ssh = net.createServer((socket) => socket.end('SSH-2.0-OpenSSH_9.2\r\n'));
  let webUrl: string;
  let sshUrl: string;
  beforeAll(async () => {
    webUrl = await listen(webPage);
    sshUrl = await listen(ssh);
  });
  afterAll(() => {
    webPage.close();
    ssh.close();
  });

  it('Agent.connect() against a web page (HTML 404): TRANSPORT_BAD_RESPONSE naming the URL, asking about baseUrl', async () => {
    const agent = agentAt(webUrl);
    const err = await agent.connect().catch((e: unknown) => e);
    await agent.close();
    expect(isTransportError(err) && err.code === 'TRANSPORT_BAD_RESPONSE').toBe(true);
    const message = (err as Error).message;
    expect(message).toContain(`${webUrl}/agents/agent-1 answered HTTP 404`);
    expect(message).toContain('is baseUrl the address of the messaging service');
    expect(message).not.toContain(TOKEN);
  });

  it('Agent.connect() against another protocol: TRANSPORT_NETWORK naming the URL and how to start a service', async () => {
    const agent = agentAt(sshUrl);
    const err = await agent.connect().catch((e: unknown) => e);
    await agent.close();
    expect(isTransportError(err) && err.code === 'TRANSPORT_NETWORK').toBe(true);
    const message = (err as Error).message;
    expect(message).toContain(`Is the service running at ${sshUrl}?`);
    expect(message).toContain('ams serve --dev');
    expect(message).not.toContain(TOKEN);
  });

  it('ams dev bootstrap with the server down: exit 1, one line with the URL and `ams serve --dev`', async () => {
    const closed = net.createServer();
    const downUrl = await listen(closed);
    await new Promise((resolve) => closed.close(resolve)); // nothing listens there now
    const io = captureIo({ env: {} });
    expect(await runCli(['dev', 'bootstrap', '--base-url', downUrl], io)).toBe(1);
    expect(io.out).toBe('');
    expect(io.err.trimEnd().split('\n')).toHaveLength(1);
    expect(io.err).toContain(`Is the service running at ${downUrl}?`);
    expect(io.err).toContain('`ams serve --dev` starts one locally');
  });
});
