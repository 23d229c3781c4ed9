import { fstatSync, readlinkSync } from 'node:fs';

/**
 * The regular file standard output writes to (`nsed ask … > review.md`), for the `answer-file`
 * step output (docs/ci.md "Step outputs"): what the descriptor names in /proc, where the system has
 * one (Linux, as GitHub's and GitLab's runners are). A terminal, a pipe, a device, an in-memory
 * stream, or a system without /proc: undefined, and no `answer-file` is written.
 */
export function stdoutFile(stdout: unknown): string | undefined {
  const fd = (stdout as { fd?: unknown } | null)?.fd;
  if (typeof fd !== 'number' || process.platform !== 'linux') return undefined;
  try {
    if (!fstatSync(fd).isFile()) return undefined;
    const named = readlinkSync(`/proc/self/fd/${fd}`);
    return named.startsWith('/') && !named.endsWith(' (deleted)') ? named : undefined;
  } catch {
    return undefined;
  }
}
