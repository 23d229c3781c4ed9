import os from 'node:os';

/**
 * False only when the pid certainly names no process: signal 0 tests for a process without
 * touching it, and EPERM means it exists, under another user. The one test behind a lock's owner,
 * an in-process simulator's owner (--sim) and doctor's count of live locks.
 */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

let host: string | undefined;

/**
 * This machine's name, as lock owners and turn claims record it beside the pid (a pid is tested
 * with isAlive only on its own host). Asked of the system once per process: a batch takes three
 * locks and makes a claim per item, and each ask is a system call.
 */
export function thisHost(): string {
  return (host ??= os.hostname());
}
