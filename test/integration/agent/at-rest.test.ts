/**
 * Nothing readable at rest (#25): what the SDK writes to disk for an agent
 * (the `FileKeyStore` key files and `pins.json` beside them) holds neither the
 * plaintext of the messages it handled nor a token, after a run that receives,
 * replies, streams and uploads. (`ams serve --data` is the dev server's state
 * and out of scope.)
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestWorld, encodingsOf, type TestWorld } from '../../../packages/dev/src/testing/index.js';
import { FileKeyStore } from '../../../packages/sdk/src/crypto/index.js';

const MARKER = 'at-rest-marker-8841-plaintext';
let world: TestWorld;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ams-at-rest-'));
  world = await createTestWorld({
    relay: true,
    agent: { connect: false, options: { keyStore: new FileKeyStore({ directory: dir }) } },
  });
  world.agent.on('message.new', async (m) => {
    await m.reply(`echo: ${m.text ?? ''}`);
    const w = await world.agent.stream(m.conversationId);
    await w.write(`streamed ${MARKER}`);
    await w.end();
    await world.agent.files.upload(m.conversationId, new TextEncoder().encode(`file ${MARKER}`), {
      name: 'note.txt',
      contentType: 'text/plain',
    });
  });
  await world.agent.connect();
});
afterAll(async () => {
  await world.close();
  rmSync(dir, { recursive: true, force: true });
});

function filesUnder(root: string): string[] {
  return readdirSync(root).flatMap((name) => {
    const path = join(root, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

describe('the agent key store directory after a run', () => {
  it('holds no plaintext and no token, in any usual encoding', async () => {
    await world.sendAsUser(`hello ${MARKER}`);
    await world.waitForReply({ kind: 'text' });
    await world.waitForReply({ kind: 'stream' });
    await world.waitForReply({ kind: 'file' });
    const tokens = new Set<string>();
    for (const r of world.relay!.records) {
      if (r.channel !== 'http-request' && r.channel !== 'ws-up') continue;
      const text = Buffer.from(r.bytes).toString('latin1');
      for (const m of text.matchAll(/(?:authorization: bearer |"token":")([A-Za-z0-9._~+/=-]{16,})/gi))
        tokens.add(m[1]!);
    }
    expect(tokens.size).toBeGreaterThan(0);
    const files = filesUnder(dir);
    // The key file (and its previous generation, kept by the atomic write) and the peer pins.
    expect(files.map((f) => f.slice(dir.length + 1)).sort()).toEqual([
      'keys.json',
      'keys.json.prev',
      'pins.json',
    ]);
    for (const file of files) {
      const bytes = readFileSync(file);
      for (const secret of [MARKER, ...tokens]) {
        for (const { name, bytes: pattern } of encodingsOf(new TextEncoder().encode(secret))) {
          expect(bytes.includes(pattern), `${name} of a secret in ${file}`).toBe(false);
        }
      }
    }
  });
});
