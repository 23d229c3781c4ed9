import type * as Crypto from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';

// node:crypto costs 15-25 ms to load (it brings webcrypto), more than a
// one-shot `ask` spends on its three store writes; every ask needs a few ids. Where there is a
// /dev/urandom, the kernel's generator (which node:crypto's is seeded from) serves them from
// one small read; elsewhere, or if it cannot be read, node:crypto is required on first use.
const load = createRequire(import.meta.url);
const POOL_BYTES = 256;
let pool: Buffer | undefined;
let used = 0;

function fromUrandom(bytes: number): Buffer | undefined {
  if (process.platform === 'win32') return undefined;
  if (pool === undefined || used + bytes > pool.length) {
    const fresh = Buffer.alloc(Math.max(POOL_BYTES, bytes));
    let fd: number | undefined;
    try {
      fd = fs.openSync('/dev/urandom', 'r');
      if (fs.readSync(fd, fresh, 0, fresh.length, null) !== fresh.length) return undefined;
    } catch {
      return undefined;
    } finally {
      if (fd !== undefined) fs.closeSync(fd);
    }
    pool = fresh;
    used = 0;
  }
  const out = pool.subarray(used, used + bytes);
  used += bytes;
  return out;
}

/** `bytes` random bytes as hex, for ids, tokens, and temp-file and lock names that must not collide. */
export function randomHex(bytes: number): string {
  const b = fromUrandom(bytes) ?? (load('node:crypto') as typeof Crypto).randomBytes(bytes);
  return b.toString('hex');
}
