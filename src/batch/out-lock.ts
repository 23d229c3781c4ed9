import { lstat } from 'node:fs/promises';
import { NsedError } from '../errors.js';
import { withLock } from '../session/lock.js';

/**
 * Runs `run` holding the lock of the batch's results file (`<FILE>.lock`, the store's own
 * cross-process lock, kept fresh while it is held), so that two batches never write one --out:
 * a second `--resume` while the first still runs would send again the items the first has in
 * flight, and their lines would mix (docs/reliability.md #156). The lock is taken at once or
 * refused with exit 7; one left by a killed batch is taken over (its owner is gone). A results
 * file that is a device or a FIFO is not locked: nothing is resumed from it.
 */
export async function holdingResults<T>(out: string, run: () => Promise<T>): Promise<T> {
  const kind = await lstat(out).then(
    (s) => (s.isFile() ? 'file' : s.isSymbolicLink() ? 'link' : 'other'),
    () => 'none',
  );
  if (kind === 'other') return run();
  let started = false;
  try {
    return await withLock({ target: out, label: `--out ${out}`, timeoutMs: 0 }, () => {
      started = true;
      return run();
    });
  } catch (err) {
    if (started || !(err instanceof NsedError) || err.code !== 'store') throw err;
    if (/is locked by another/.test(err.message))
      throw new NsedError('conflict', `--out ${out} is being written by another nsed batch${ownerOf(err.message)}`, {
        hint: 'wait for it to end (or stop it), then run the batch again with --resume',
      });
    throw new NsedError('io', `cannot write --out ${out}: ${err.message.replace(/^cannot lock [^:]*: /, '')}`, {
      cause: err,
    });
  }
}

const ownerOf = (message: string): string => / \(pid \d+\)/.exec(message)?.[0] ?? '';
