/**
 * Key store: the agent's key ring (current generation plus retired X25519
 * pairs in grace) and where it is kept. See docs/key-store.md.
 *
 * `FileKeyStore` is Node-only and lives in `./file-key-store.js`; it is
 * exported here too because the `./crypto` entry targets Node.
 *
 * @module
 */
export { KeyRing, type CurrentKeyGeneration, type RetiredKeyGeneration } from './key-ring.js';
export {
  KEY_RING_FORMAT,
  KEY_RING_MAX_BYTES,
  KEY_RING_VERSION,
  KeyRingFileSchema,
  LegacyKeyRingFileSchema,
  decodeKeyRing,
  decodeKeyRingFile,
  encodeKeyRing,
  type DecodedKeyRing,
  type KeyRingFile,
  type LegacyKeyRingFile,
} from './key-ring-codec.js';
export type { KeyStore, KeyStoreOptions } from './key-store.js';
export { MemoryKeyStore } from './memory-key-store.js';
export { SecretKeyStore, type SecretKeyStoreOptions } from './secret-key-store.js';
export {
  FileKeyStore,
  KEY_DIRECTORY_MODE,
  KEY_FILE_MODE,
  PREVIOUS_KEY_FILE_SUFFIX,
  type FileKeyStoreOptions,
} from './file-key-store.js';
export { nodeFileSystem, type FileKeyStoreFs } from './file-system.js';
export {
  loadOrCreateKeys,
  rotateStoredKeys,
  type LoadOrCreateKeysOptions,
  type LoadedKeys,
  type RotateStoredKeysOptions,
} from './load-or-create.js';
export {
  FilePinStore,
  PIN_FILE_NAME,
  type FilePinStoreOptions,
  type PinRecordStore,
} from './file-pin-store.js';
