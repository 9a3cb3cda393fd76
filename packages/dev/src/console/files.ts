/**
 * Files in the console: a `file` message shows its name and size with a
 * Download button. The ciphertext is fetched (`GET /r2/<object_key>`, the
 * user's access token in the header), its size and SHA-256 checked against
 * the sealed payload, each AMSF chunk opened in the page with WebCrypto's
 * AES-GCM (nonce with the chunk counter and last flag, the header as AAD),
 * and the plaintext handed to the browser as a `blob:` download. The file key
 * never leaves the page.
 *
 * @module
 */
import { fromBase64 } from 'agent-messaging-sdk/protocol';
import { FilePayloadSchema, type FilePayload } from 'agent-messaging-sdk/protocol';
import { portableBackend } from 'agent-messaging-sdk/protocol';
import {
  CHUNK_TAG_BYTES,
  chunkCount,
  chunkNonce,
  FILE_HEADER_BYTES,
  parseFileHeader,
} from 'agent-messaging-sdk/protocol';

/** The file a message payload carries, or undefined. */
export function fileOf(payload: Readonly<Record<string, unknown>>): FilePayload | undefined {
  if (payload['type'] !== 'file') return undefined;
  const parsed = FilePayloadSchema.safeParse(payload);
  return parsed.success ? parsed.data : undefined;
}

const hex = (b: Uint8Array): string => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');

/** Checks and decrypts a whole AMSF object against its `file` payload; throws on any mismatch. */
export async function decryptFile(object: Uint8Array, file: FilePayload): Promise<Uint8Array> {
  if (object.length !== file.ciphertext_size)
    throw new Error('size: the object is not the size the message says');
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', object as Uint8Array<ArrayBuffer>));
  if (hex(digest) !== file.ciphertext_sha256)
    throw new Error('sha256: the object is not the one the message names');
  const key = fromBase64(file.key);
  if (key?.length !== 32) throw new Error('key: not 32 bytes');
  const header = parseFileHeader(object.subarray(0, FILE_HEADER_BYTES));
  if (header.chunkSize !== file.chunk_size)
    throw new Error('header: another chunk size than the message says');
  const n = chunkCount(file.size, header.chunkSize);
  const out = new Uint8Array(file.size);
  let at = FILE_HEADER_BYTES;
  let written = 0;
  for (let i = 0; i < n; i++) {
    const plain = Math.min(header.chunkSize, file.size - written);
    const sealed = object.subarray(at, at + plain + CHUNK_TAG_BYTES);
    const opened = await portableBackend.async.aesGcmDecrypt(
      key,
      chunkNonce(header.noncePrefix, i, i === n - 1),
      sealed,
      header.bytes,
    );
    if (opened?.length !== plain) throw new Error(`chunk ${i} does not authenticate`);
    out.set(opened, written);
    written += plain;
    at += sealed.length;
  }
  if (at !== object.length) throw new Error('trailing bytes after the last chunk');
  return out;
}

/** Fills a bubble with the file's name, size and a Download button. */
export function renderFile(
  li: HTMLElement,
  file: FilePayload,
  fetchObject: (key: string) => Promise<Uint8Array>,
): void {
  li.classList.add('file');
  li.textContent = `📎 ${file.name} (${file.size} bytes)`;
  const b = document.createElement('button');
  b.type = 'button';
  b.className = 'download';
  b.textContent = 'Download';
  const note = document.createElement('span');
  note.className = 'muted';
  b.addEventListener('click', () => {
    b.disabled = true;
    note.textContent = ' fetching…';
    void (async () => {
      try {
        const plain = await decryptFile(await fetchObject(file.object_key), file);
        const url = URL.createObjectURL(
          new Blob([plain as Uint8Array<ArrayBuffer>], { type: file.content_type }),
        );
        const a = document.createElement('a');
        a.href = url;
        a.download = file.name;
        a.className = 'saved';
        a.textContent = 'save again';
        li.dataset['state'] = 'decrypted';
        note.textContent = ' decrypted in this page, checked ✓ ';
        note.after(a);
        a.click();
      } catch (err) {
        li.dataset['state'] = 'failed';
        note.textContent = ` ${(err as Error).message}`;
        b.disabled = false;
      }
    })();
  });
  li.append(' ', b, note);
}
