import type * as Crypto from 'node:crypto';
import { createRequire } from 'node:module';

// node:crypto brings webcrypto with it (15-25 ms at start-up, bench/RESULTS.md); `sessions ls`
// opens the store but never names a temp file or a lock, so it is required on first use.
const load = createRequire(import.meta.url);

/** `bytes` random bytes as hex, for temp-file and lock names that must not collide. */
export function randomHex(bytes: number): string {
  return (load('node:crypto') as typeof Crypto).randomBytes(bytes).toString('hex');
}
