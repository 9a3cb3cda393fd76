/**
 * Argon2id cost of a key backup derivation (hash-wasm) at the default
 * parameters, the minimal-form parameters and the floor, beside two baselines
 * measured in the same run: node:crypto scrypt at the same 64 MiB, and the
 * floor itself. Plus whole create/restore calls, to show the AES-GCM part is noise.
 */
import { scrypt } from 'node:crypto';
import { argon2id } from 'hash-wasm';
import {
  ARGON2_PARAMS_FLOOR,
  DEFAULT_ARGON2_PARAMS,
  MINIMAL_FORM_ARGON2_PARAMS,
  createKeyBackup,
  restoreKeyBackup,
} from '../packages/sdk/src/crypto/backup/index.js';
import type { Argon2Params } from '../packages/sdk/src/core/protocol/key-backup.js';
import { generateKeys } from '../packages/sdk/src/crypto/keys.js';
import { fmt, measure, printTable, type Measurement } from './lib/harness.js';

const salt = new Uint8Array(32).fill(9);
const password = 'bench protection password';

function derive(params: Argon2Params): Promise<Uint8Array> {
  return argon2id({
    password,
    salt,
    iterations: params.t,
    parallelism: params.p,
    memorySize: params.m,
    hashLength: 32,
    outputType: 'binary',
  });
}

// scrypt N=2^16, r=8 uses 128 * N * r bytes = 64 MiB, the default's memory.
function scrypt64MiB(): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password, salt, 32, { N: 65_536, r: 8, p: 1, maxmem: 80 * 1024 * 1024 }, (err, key) =>
      err ? reject(err) : resolve(key),
    ),
  );
}

const label = (p: Argon2Params): string => `m=${fmt(p.m / 1024, 0)} MiB, t=${p.t}, p=${p.p}`;

export default async function (): Promise<void> {
  const opts = { durationMs: Math.max(1500, Number(process.env['BENCH_MS'] ?? 0)), warmupMs: 300 };
  const keys = generateKeys();
  const record = await createKeyBackup(keys, password, { deviceId: 'bench' });
  const runs: [string, string, Measurement][] = [
    ['scrypt (baseline)', 'N=2^16, r=8, p=1 (64 MiB)', await measure('scrypt', scrypt64MiB, opts)],
    [
      'Argon2id floor (baseline)',
      label(ARGON2_PARAMS_FLOOR),
      await measure('floor', () => derive(ARGON2_PARAMS_FLOOR), opts),
    ],
    [
      'Argon2id default',
      label(DEFAULT_ARGON2_PARAMS),
      await measure('default', () => derive(DEFAULT_ARGON2_PARAMS), opts),
    ],
    [
      'Argon2id minimal form',
      label(MINIMAL_FORM_ARGON2_PARAMS),
      await measure('minimal', () => derive(MINIMAL_FORM_ARGON2_PARAMS), opts),
    ],
    [
      'createKeyBackup (default)',
      'Argon2id + 2 × AES-GCM seal',
      await measure('create', () => createKeyBackup(keys, password, { deviceId: 'bench' }), opts),
    ],
    [
      'restoreKeyBackup (default)',
      'parse + Argon2id + 2 × open + checks',
      await measure('restore', () => restoreKeyBackup(record, password), opts),
    ],
  ];
  const scryptMs = runs[0]![2].meanUs / 1000;
  const floorMs = runs[1]![2].meanUs / 1000;
  printTable(
    'Key backup derivation, ms per call (lower is better)',
    ['operation', 'parameters', 'ms/op', 'vs scrypt 64 MiB', 'vs Argon2id floor', 'runs'],
    runs.map(([name, params, m]) => {
      const ms = m.meanUs / 1000;
      return [
        name,
        params,
        fmt(ms, 1),
        `${fmt(ms / scryptMs, 2)}×`,
        `${fmt(ms / floorMs, 2)}×`,
        String(m.iterations),
      ];
    }),
  );
}
