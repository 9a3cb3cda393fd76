/**
 * A file bot: for every file it receives, it answers with the file's SHA-256
 * and sends back a transformed file — text upper-cased, anything else with
 * every byte inverted — streamed both ways (a 100 MB file never sits in memory).
 *
 *   ams serve --dev --port 8080 &
 *   ams dev bootstrap > .env
 *   npx tsx --env-file=.env examples/file-bot.ts
 */
import { createHash } from 'node:crypto';
import { Agent, FileIntegrityError, type FileDownload } from 'agent-messaging-sdk';
import { agentEnv } from './env.js';

const agent = new Agent({ ...agentEnv() });

/** The plaintext, hashed as it passes, transformed piece by piece. */
async function* transform(
  file: FileDownload,
  hash: ReturnType<typeof createHash>,
): AsyncGenerator<Uint8Array> {
  const text = file.contentType.startsWith('text/');
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  for await (const piece of file.stream()) {
    hash.update(piece);
    if (text) {
      yield encoder.encode(decoder.decode(piece, { stream: true }).toUpperCase());
    } else {
      yield piece.map((b) => 255 - b);
    }
  }
  if (text) yield encoder.encode(decoder.decode().toUpperCase());
}

agent.on('message.new', async (msg) => {
  if (msg.payload.type !== 'file') {
    await msg.reply('Send me a file: I answer with its SHA-256 and a transformed copy.');
    return;
  }
  try {
    const file = await agent.files.download(msg.payload);
    const hash = createHash('sha256');
    const text = file.contentType.startsWith('text/');
    // Upload the transformed copy while the original is still downloading.
    await agent.files.upload(msg.conversationId, transform(file, hash), {
      name: `${text ? 'upper' : 'inverted'}-${file.name}`,
      contentType: file.contentType,
    });
    await msg.reply(`sha256 ${hash.digest('hex')} (${file.size} bytes, ${file.name})`);
  } catch (err) {
    if (err instanceof FileIntegrityError) await msg.reply(`That file failed its ${err.failure} check.`);
    else throw err;
  }
});
agent.on('error', (err) => console.error('error:', err));
agent.on('fatal', (err) => {
  console.error('stopped for good:', err.message);
  process.exit(1);
});

await agent.connect();
console.log(`file-bot: connected as ${agent.agentId}`);
