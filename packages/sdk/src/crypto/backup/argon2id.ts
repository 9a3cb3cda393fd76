/**
 * hash-wasm's Argon2id alone, behind a module of its own: `kdf.ts` imports
 * this file on the first derivation (so importing the SDK does not load
 * hash-wasm), and a bundler still keeps only Argon2id of hash-wasm (a
 * dynamic `import('hash-wasm')` would take all of its algorithms: +190 KB in
 * the dev console's script).
 *
 * @module
 */
export { argon2id } from 'hash-wasm';
