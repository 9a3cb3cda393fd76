/**
 * Payload helpers of the Chat SDK adapter: text and files out of our payloads,
 * cards and files out of the Chat SDK's postables, emoji both ways.
 *
 * @module
 */
import {
  defaultEmojiResolver,
  isCardElement,
  type AdapterPostableMessage,
  type CardElement,
  type EmojiValue,
  type FileUpload,
} from 'chat';
import type { FilePayload } from '../index.js';

export function textOf(payload: unknown): string {
  const text = (payload as { text?: unknown } | undefined)?.text;
  return typeof payload === 'object' && payload !== null && typeof text === 'string' ? text : '';
}

export function isFilePayload(payload: unknown): payload is FilePayload {
  return typeof payload === 'object' && payload !== null && (payload as { type?: unknown }).type === 'file';
}

export function cardOf(message: AdapterPostableMessage): CardElement | undefined {
  if (isCardElement(message)) return message;
  if (typeof message === 'object' && 'card' in message) return message.card;
  return undefined;
}

export function filesOf(message: AdapterPostableMessage): FileUpload[] {
  if (typeof message !== 'object' || isCardElement(message)) return [];
  const files: FileUpload[] = [...(message.files ?? [])];
  for (const a of 'attachments' in message ? (message.attachments ?? []) : []) {
    if (a.data !== undefined) {
      files.push({
        data: a.data,
        filename: a.name ?? 'attachment',
        ...(a.mimeType ? { mimeType: a.mimeType } : {}),
      });
    }
  }
  return files;
}

export async function toBytes(data: Buffer | Blob | ArrayBuffer): Promise<Uint8Array> {
  if (data instanceof Uint8Array) return data;
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  return new Uint8Array(await data.arrayBuffer());
}

/** A Node `Buffer` where there is one (what Chat SDK bots expect), else an `ArrayBuffer`. */
export function toBufferLike(bytes: Uint8Array): Buffer | ArrayBuffer {
  const NodeBuffer = (globalThis as { Buffer?: typeof Buffer }).Buffer;
  if (NodeBuffer !== undefined) return NodeBuffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return bytes.slice().buffer;
}

export function toUnicode(emoji: EmojiValue | string): string {
  return defaultEmojiResolver.toGChat(emoji);
}
