import * as c from 'node:crypto';
import { createFileEncryptionParams, encryptFileStream } from './src/crypto/file-stream/encrypt.js';
import { decryptFileStream } from './src/crypto/file-stream/decrypt.js';
const MB = 1048576, total = 100 * MB;
const block = c.randomBytes(MB); const params = createFileEncryptionParams();
function* source() { for (let done = 0; done < total; done += MB) yield block; }
const sealed: Uint8Array[] = [];
for await (const piece of encryptFileStream(source(), params)) sealed.push(piece);
for (let r = 0; r < 4; r++) {
  const s = process.cpuUsage();
  const hash = c.createHash('sha256');
  const tapped = function* () { for (const piece of sealed) { hash.update(piece); yield piece; } };
  for await (const piece of decryptFileStream(tapped(), params.key)) void piece;
  hash.digest(); const u = process.cpuUsage(s);
  console.log('user', (u.user/1000).toFixed(0), 'sys', (u.system/1000).toFixed(0), 'MB/s(user+sys)', (100 / ((u.user + u.system) / 1e6)).toFixed(0));
}
