import { createHash } from 'node:crypto';
import type { PlacedFinding } from '../findings.js';

/** What a finding checks: its title, else its severity (GitLab's `check_name`). */
export const findingCheck = (f: PlacedFinding): string => f.title ?? `nsed ${f.severity}`;

/**
 * A finding's identity across runs: a hash of its path, line, check and message, and of nothing
 * a run makes up (no session, job or turn id, no time), so the same finding on the same line has
 * the same fingerprint in every run (GitLab Code Quality, SARIF `partialFingerprints`).
 */
export function findingFingerprint(f: PlacedFinding): string {
  return createHash('sha256')
    .update(JSON.stringify([f.path, f.line, findingCheck(f), f.message]))
    .digest('hex')
    .slice(0, 32);
}
