/**
 * Encrypted files: sources, upload, download and the `files` facade of the
 * Agent and the UserClient.
 *
 * @module
 */
export { FileTransfer, type FileTransferDeps, type SentFile } from './file-transfer.js';
export { type FileDownload, type FileDownloadOptions } from './download.js';
export { type FileUploadOptions } from './upload.js';
export { type FileSource } from './sources.js';
