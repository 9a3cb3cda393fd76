/** `ams dev send|chat` print a `file` payload by name, size and type, never its key. */
import { describe, expect, it } from 'vitest';
import { payloadText } from '../../../packages/dev/src/cli/dev/print.js';

describe('payloadText', () => {
  it('prints a file payload without its key, control characters of the name blanked', () => {
    const key = Buffer.alloc(32, 7).toString('base64');
    const text = payloadText({
      type: 'file',
      format: 'amsf-v1',
      object_key: 'file_1',
      name: 'a\u001b[31mb.txt',
      content_type: 'text/plain',
      size: 12,
      chunk_size: 65_536,
      ciphertext_size: 60,
      ciphertext_sha256: '0'.repeat(64),
      key,
    });
    expect(text).toBe('file a [31mb.txt (12 bytes, text/plain)');
    expect(text).not.toContain(key);
  });

  it('keeps text and other payloads as before', () => {
    expect(payloadText({ type: 'text', text: 'a\nb' })).toBe('a b');
    expect(payloadText({ type: 'other', x: 1 })).toBe('{"type":"other","x":1}');
  });
});
