import { stat } from 'node:fs/promises';
import { NsedError, usageError } from '../errors.js';
import { withLock } from '../session/lock.js';

/**
 * Runs `run` holding the lock of the batch's results file (`<FILE>.lock`, the store's own
 * cross-process lock, kept fresh while it is held), so that two batches never write one --out:
 * a second `--resume` while the first still runs would send again the items the first has in
 * flight, and their lines would mix (docs/reliability.md #156). The lock is taken at once or
 * refused with exit 7; one left by a killed batch is taken over (its owner is gone).
 *
 * A FIFO is refused (exit 2): opening it waits for a reader that may never come, and the result
 * lines go to stdout for a pipe anyway. A device (`/dev/null`) is written without a lock:
 * nothing is resumed from it (docs/reliability.md #157).
 */
export async function holdingResults<T>(out: string, run: () => Promise<T>): Promise<T> {
  const st = await stat(out).catch(() => undefined);
  if (st?.isFIFO() === true)
    throw usageError(`--out ${out} is a FIFO`, 'leave --out out: the result lines go to stdout, for a pipe to read');
  if (st !== undefined && !st.isFile()) return run();
  let started = false;
  try {
    return await withLock(
      {
        target: out,
        label: `--out ${out}`,
        timeoutMs: 0,
        held: (pid) =>
          new NsedError(
            'conflict',
            `--out ${out} is being written by another nsed batch${pid === undefined ? '' : ` (pid ${pid})`}`,
            { hint: 'wait for it to end (or stop it), then run the batch again with --resume' },
          ),
      },
      () => {
        started = true;
        return run();
      },
    );
  } catch (err) {
    // The lock could not be made beside the file (a missing folder, no write permission): the
    // results file could not be written either.
    if (started || !(err instanceof NsedError) || err.code !== 'store') throw err;
    const code = (err.cause as NodeJS.ErrnoException | undefined)?.code ?? err.message;
    throw new NsedError('io', `cannot write --out ${out}: ${code}`, { cause: err });
  }
}
