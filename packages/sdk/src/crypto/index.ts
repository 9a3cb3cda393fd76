/**
 * `agent-messaging-sdk/crypto`: agent keys, envelope crypto v1 (`seal` /
 * `open`), crypto backends, key backup and key store.
 *
 * @module crypto
 */

// --- keys ---
export {
  generateKeys,
  keysFromPrivate,
  keyFingerprint,
  fingerprintBytes,
  redactedKeyPair,
  REDACTED_PRIVATE_KEY,
  KEY_BYTES,
  FINGERPRINT_BYTES,
  type KeyPair,
  type AgentKeys,
  type KeysOptions,
} from './keys.js';

// --- the one Ed25519 verification rule ---
export { ed25519KeyProblem, type Ed25519KeyProblem, type Ed25519SignatureProblem } from './ed25519-rules.js';

// --- proof of key possession (agent key registration and check) ---
export { buildKeyProof, keyProofTranscript, type KeyChallenge, type KeyProofFields } from './key-proof.js';
export {
  KEY_STATEMENT_LABEL,
  keyStatementBytes,
  keyStatementFromWire,
  keyStatementToWire,
  signKeyStatement,
  verifyKeyStatement,
  type KeyStatement,
  type KeyStatementFields,
} from './key-statement.js';

// --- human decisions signed by the human (docs/grants.md, docs/manifests.md) ---
export { manifestSha256, signDecision, verifyDecision } from './decision.js';

// --- streamed replies (stream v2: docs/envelope.md, "Streamed replies") ---
export {
  streamCipher,
  streamOpenerAsync,
  StreamChain,
  frameStreamDelta,
  unframeStreamDelta,
  unframeStreamAbort,
  signStream,
  signStreamEnd,
  verifyStreamSignature,
  verifyStreamEnd,
  streamEndMessage,
  streamSignedMessage,
  STREAM_KEY_BYTES,
  STREAM_OPEN_PAYLOAD_TYPE,
  STREAM_CRYPTO_VERSION,
  STREAM_SIGNATURE_BYTES,
  STREAM_CHECKPOINT_MAX_DELTAS,
  STREAM_DELTA_TEXT_MAX_BYTES,
  STREAM_ABORT_REASON_MAX_BYTES,
  type StreamSignedKind,
  type StreamCipher,
  type AsyncStreamOpener,
  type StreamHashPrimitives,
} from './stream/stream-crypto.js';

// --- envelope v1 ---
export { seal, sealAsync, sealBytes, sealBytesAsync, sealPayloadBytes } from './seal.js';
export { open, openAsync, openPayloadBytes, OPEN_VERIFY_FIRST_BYTES } from './open.js';
export {
  discloseContentKey,
  openDisclosed,
  CONTENT_KEY_BYTES,
  type DisclosedEnvelope,
} from './forward-proof.js';
export {
  OpenWorkerPool,
  AUTO_IN_FLIGHT_THRESHOLD,
  AUTO_MAX_WORKERS,
  JOBS_PER_WORKER,
  OPEN_POOL_IDLE_MS,
  autoWorkerCount,
  type OpenPoolOptions,
  type OpenPoolStats,
  type OpenWorkerHandle,
  type OpenWorkersSetting,
} from './open-pool/pool.js';
export {
  DEFAULT_FRESHNESS_WINDOW,
  freshnessFailure,
  MAX_CLOCK_SKEW_MS,
  MAX_ENVELOPE_AGE_MS,
  MESSAGE_DEDUP_MEMORY_MS,
  type FreshnessWindow,
} from './freshness.js';
export type {
  SealOptions,
  SealAsyncOptions,
  EnvelopeRecipient,
  EnvelopeSender,
  EnvelopeVersionName,
} from './seal-options.js';
export { DEFAULT_SEALED_EVENT_TYPE } from './seal-options.js';
export type {
  OpenOptions,
  OpenAsyncOptions,
  OpenedEnvelope,
  OpenedPayloadBytes,
  OpenedRecipient,
  RecipientKeys,
  SenderKeyLookup,
  SyncSenderKeyLookup,
} from './open-options.js';
export { EnvelopePayloadSchema, type EnvelopePayload } from './payload.js';
export { ENVELOPE_INLINE_MAX_BYTES, ENVELOPE_REF_MAX_BYTES } from './envelope-wire.js';
export {
  ENVELOPE_MAGIC,
  ENVELOPE_VERSION,
  LEGACY_ENVELOPE_VERSION,
  ENVELOPE_SUITE,
  MAX_RECIPIENTS,
  MAX_ID_BYTES,
} from './envelope-format.js';

// --- backends ---
export { nodeBackend } from './backend/node.js';
export { portableBackend, createPortableBackend, type PortableBackendOptions } from './backend/portable.js';
export { defaultBackend, defaultSyncBackend } from './backend/node-default.js';
export type {
  CryptoBackend,
  SyncCryptoBackend,
  KeyPrimitives,
  SyncPrimitives,
  AsyncPrimitives,
  RawKeyPair,
  IncrementalHash,
} from './backend/types.js';

// --- key backup and key store ---
// The record's types and schemas (KeyBackupRecord, KeyBackupFull, KeyBackupMinimal,
// Argon2Params, parseKeyBackupRecord, …) are the core model's, exported from the root entry.
export {
  ARGON2_PARAMS_FLOOR,
  ARGON2_PARAMS_MAX,
  DEFAULT_ARGON2_PARAMS,
  MINIMAL_FORM_ARGON2_PARAMS,
  BACKUP_BLOB_BYTES,
  BACKUP_BLOB_V1_BYTES,
  BACKUP_BLOB_VERSION,
  BACKUP_BLOB_VERSION_V1,
  BACKUP_FORM,
  BACKUP_KEY_ID,
  checkKeyBackupRecord,
  PROTECTION_PASSWORD_MIN_CHARS,
  createKeyBackup,
  createMinimalKeyBackup,
  restoreKeyBackup,
  type BackupKeyId,
  type CreateKeyBackupOptions,
  type RestoreKeyBackupOptions,
  type RestoredFullKeyBackup,
  type RestoredKeyBackup,
  type RestoredMinimalKeyBackup,
} from './backup/index.js';
export {
  KeyRing,
  KEY_RING_FORMAT,
  KEY_RING_MAX_BYTES,
  KEY_RING_VERSION,
  KeyRingFileSchema,
  LegacyKeyRingFileSchema,
  decodeKeyRing,
  decodeKeyRingFile,
  encodeKeyRing,
  MemoryKeyStore,
  SecretKeyStore,
  type SecretKeyStoreOptions,
  FileKeyStore,
  FilePinStore,
  PIN_FILE_NAME,
  type FilePinStoreOptions,
  type PinRecordStore,
  KEY_DIRECTORY_MODE,
  KEY_FILE_MODE,
  PREVIOUS_KEY_FILE_SUFFIX,
  nodeFileSystem,
  loadOrCreateKeys,
  rotateStoredKeys,
  type CurrentKeyGeneration,
  type RetiredKeyGeneration,
  type KeyRingFile,
  type LegacyKeyRingFile,
  type DecodedKeyRing,
  type KeyStore,
  type KeyStoreOptions,
  type FileKeyStoreOptions,
  type FileKeyStoreFs,
  type LoadOrCreateKeysOptions,
  type LoadedKeys,
  type RotateStoredKeysOptions,
} from './key-store/index.js';
export {
  fingerprint,
  safetyNumber,
  SAFETY_NUMBER_ITERATIONS,
  type SafetyNumberParty,
} from './safety-number.js';
export {
  createFileEncryptionParams,
  encryptFileStream,
  encryptFileBytes,
  type FileEncryptionParams,
  type EncryptFileStreamOptions,
} from './file-stream/encrypt.js';
export { decryptFileStream, type DecryptFileStreamOptions } from './file-stream/decrypt.js';
export { ChunkReader, type SealedChunk } from './file-stream/chunk-reader.js';
export {
  FILE_MAGIC,
  FILE_FORMAT_VERSION,
  FILE_HEADER_BYTES,
  FILE_KEY_BYTES,
  NONCE_PREFIX_BYTES,
  CHUNK_TAG_BYTES,
  DEFAULT_CHUNK_SIZE,
  MIN_CHUNK_SIZE,
  MAX_CHUNK_SIZE,
  ciphertextSize,
  maxCiphertextSize,
  parseFileHeader,
  type FileHeader,
} from './file-stream/format.js';
