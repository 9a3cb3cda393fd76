/**
 * `npm start`: a short tour of the envelope crypto, until the full demo
 * (reference server + bots) lands. Generates keys for a sender and two
 * recipients, seals one message for both, opens it as each, and shows that a
 * tampered envelope fails with a typed DECRYPT_FAILURE reason.
 */
import { generateKeys, keyFingerprint, open, seal } from '../src/crypto/index.js';
import { isCryptoError } from '../src/index.js';

const alice = { id: 'user-alice', keys: generateKeys() };
const bot = { id: 'agent-echo', keys: generateKeys() };
const bob = { id: 'user-bob', keys: generateKeys() };

console.log('1. generated X25519 + Ed25519 key pairs');
for (const p of [alice, bot, bob]) {
  console.log(`   ${p.id.padEnd(10)} encryption ${keyFingerprint(p.keys.encryption.publicKey)}`);
}

const envelope = seal(
  { type: 'text', text: 'Hello from Alice: this is end-to-end encrypted.' },
  {
    sender: { id: alice.id, signing: alice.keys.signing },
    recipients: [
      { id: bot.id, publicKey: bot.keys.encryption.publicKey },
      { id: bob.id, publicKey: bob.keys.encryption.publicKey },
    ],
    conversationId: 'conv-demo',
  },
);
console.log(`2. sealed one message for 2 recipients: wire_envelope is ${envelope.length} base64 characters`);

for (const r of [bot, bob]) {
  const opened = open(envelope, {
    recipientId: r.id,
    keys: [r.keys.encryption],
    senderKey: (senderId) => (senderId === alice.id ? alice.keys.signing.publicKey : undefined),
  });
  console.log(`3. ${r.id} opened it: ${JSON.stringify(opened.payload)} (from ${opened.senderId})`);
}

const bytes = Buffer.from(envelope, 'base64');
bytes[bytes.length - 1]! ^= 0x01;
try {
  open(bytes.toString('base64'), {
    recipientId: bot.id,
    keys: [bot.keys.encryption],
    senderKey: alice.keys.signing.publicKey,
  });
  console.error('4. tampered envelope opened: this must never happen');
  process.exitCode = 1;
} catch (err) {
  if (!isCryptoError(err)) throw err;
  console.log(`4. one flipped bit is refused: ${err.code} (reason: ${err.reason ?? 'n/a'})`);
}
