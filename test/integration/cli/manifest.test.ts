/**
 * `ams manifest validate|push` in-process against the reference server
 * (virtual time): valid and invalid files, the 64 KB warning, the 128 KB
 * refusal, a push the owner then sees pending, a version conflict and the
 * rate limit with --fail-fast.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS } from '../../../packages/sdk/src/index.js';
import { manifestSizeBytes } from '../../../packages/sdk/src/protocol.js';
import type { ReferenceServer } from '../../../packages/dev/src/testing/index.js';
import { runCli } from '../../../packages/dev/src/cli/run.js';
import {
  createTestAgent,
  createTestUser,
  startAgentServer,
  type TestAgent,
} from '../../helpers/server-agents.js';
import { captureIo } from '../../unit/cli/helpers.js';
import { manifestOfSize, sampleManifest } from '../../fixtures/manifests/manifests.js';

const dir = mkdtempSync(join(tmpdir(), 'ams-manifest-'));
function file(name: string, value: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, typeof value === 'string' ? value : JSON.stringify(value, null, 2));
  return path;
}

describe('ams manifest validate', () => {
  it('says valid with the canonical size, exit 0', async () => {
    const io = captureIo();
    expect(await runCli(['manifest', 'validate', file('ok.json', sampleManifest())], io)).toBe(0);
    expect(io.out).toBe(`valid: ${manifestSizeBytes(sampleManifest())} bytes\n`);
    expect(io.err).toBe('');
  });

  it('reads standard input with -, and --json lists the issues of an invalid manifest (exit 1)', async () => {
    const io = captureIo({ stdin: JSON.stringify({ ...sampleManifest(), version: 'v1', extra: true }) });
    expect(await runCli(['manifest', 'validate', '-', '--json'], io)).toBe(1);
    const out = JSON.parse(io.out) as { valid: boolean; issues: { path: string[] }[] };
    expect(out.valid).toBe(false);
    expect(out.issues.map((i) => i.path.join('.'))).toEqual(expect.arrayContaining(['version']));
  });

  it('an invalid manifest without --json: one line naming the field, exit 1', async () => {
    const io = captureIo();
    const path = file('bad.json', {
      ...sampleManifest(),
      tools: [{ name: 'X', description: 'd', input_schema: {} }],
    });
    expect(await runCli(['manifest', 'validate', path], io)).toBe(1);
    expect(io.err).toMatch(/^ams manifest validate: .*tools/);
  });

  it('warns at 64 KB and above, refuses above 128 KB with the size', async () => {
    const large = captureIo();
    expect(
      await runCli(
        ['manifest', 'validate', file('large.json', manifestOfSize(LIMITS.MANIFEST_WARN_BYTES))],
        large,
      ),
    ).toBe(0);
    expect(large.err).toContain('warning: the manifest is');
    const big = manifestOfSize(LIMITS.MANIFEST_MAX_BYTES + 1);
    const tooBig = captureIo();
    expect(await runCli(['manifest', 'validate', file('big.json', big)], tooBig)).toBe(1);
    expect(tooBig.err).toContain('MANIFEST_TOO_LARGE');
    expect(tooBig.err).toContain(String(manifestSizeBytes(big)));
  });

  it('not JSON, or no FILE: usage errors (exit 2)', async () => {
    const io = captureIo();
    expect(await runCli(['manifest', 'validate', file('text.json', 'not json')], io)).toBe(2);
    expect(io.err).toContain('is not JSON');
    expect(await runCli(['manifest', 'validate'], captureIo())).toBe(2);
    expect(await runCli(['manifest'], captureIo())).toBe(2);
  });
});

describe('ams manifest push', () => {
  let server: ReferenceServer;
  let agent: TestAgent;
  let env: Record<string, string>;

  beforeAll(async () => {
    server = await startAgentServer({ virtualTime: true });
    agent = await createTestAgent(server, await createTestUser(server));
    env = { AMS_BASE_URL: server.url, AMS_AGENT_ID: agent.agentId, AMS_AGENT_TOKEN: agent.token };
  });
  afterAll(async () => {
    await server.close();
  });

  it('proposes the manifest based on the head it reads; then conflict and rate limit', async () => {
    const io = captureIo({ env });
    expect(await runCli(['manifest', 'push', file('push.json', sampleManifest())], io)).toBe(0);
    expect(io.out).toMatch(/^proposed version 1 \(\d+ bytes\)/);
    expect(io.out + io.err).not.toContain(agent.token);

    const limited = captureIo({ env });
    expect(
      await runCli(['manifest', 'push', '--fail-fast', file('push2.json', sampleManifest('1.0.1'))], limited),
    ).toBe(1);
    expect(limited.err).toContain('MANIFEST_UPDATE_RATE_LIMITED');

    server.advanceTime(LIMITS.MANIFEST_UPDATE_WINDOW_MS);
    const stale = captureIo({ env });
    expect(
      await runCli(
        ['manifest', 'push', '--based-on', '0', file('push3.json', sampleManifest('1.0.2'))],
        stale,
      ),
    ).toBe(1);
    expect(stale.err).toContain('HTTP 409 MANIFEST_VERSION_CONFLICT');

    const json = captureIo({ env });
    expect(
      await runCli(
        ['manifest', 'push', '--json', '--fail-fast', file('push4.json', sampleManifest('1.0.3'))],
        json,
      ),
    ).toBe(0);
    expect(JSON.parse(json.out)).toMatchObject({
      version: 2,
      status: 'pending',
      manifest: { version: '1.0.3' },
    });
  });

  it('without an agent id or token: usage error naming the variable', async () => {
    const io = captureIo({ env: { AMS_BASE_URL: server.url } });
    expect(await runCli(['manifest', 'push', file('push5.json', sampleManifest())], io)).toBe(2);
    expect(io.err).toContain('AMS_AGENT_ID');
  });
});
