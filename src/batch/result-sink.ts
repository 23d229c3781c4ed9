import { open, type FileHandle } from 'node:fs/promises';
import { NsedError } from '../errors.js';
import type { WriteBoundary } from '../files/kill-hook.js';
import { SyncGroup } from '../files/sync-group.js';
import type { IO } from '../terminal/io.js';

/** Where result lines go: each `write` resolves once its line is whole on stdout or on disk. */
export interface ResultSink {
  write(line: string): Promise<void>;
  close(): Promise<void>;
}

const NO_SYNC = new Set(['EINVAL', 'ENOTSUP']);

const ioError = (what: string, err: unknown): NsedError =>
  new NsedError('io', `cannot write ${what}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`, { cause: err });

/** stdout: one write per line, awaited, so lines never interleave and a full pipe slows the batch. */
export function stdoutSink(io: Pick<IO, 'stdout'>): ResultSink {
  return {
    write: (line) =>
      new Promise((resolve, reject) => {
        io.stdout.write(line, (err) => (err == null ? resolve() : reject(ioError('stdout', err))));
      }),
    close: async () => undefined,
  };
}

/**
 * --out FILE, opened for appending (mode 0600: the answers are the conversation's) and written one
 * line at a time, each write resolving once an fsync that began after its line was appended has
 * ended, so a crash loses no finished line and a reader sees every line as its item ends
 * (docs/reliability.md #143). Lines are appended one after another, never two at once, so each is
 * whole; the lines of items that end together share one fsync (docs/reliability.md #260).
 */
export async function fileSink(
  file: string,
  opts: { freshLine?: boolean; boundary?: WriteBoundary | undefined } = {},
): Promise<ResultSink> {
  let handle: FileHandle;
  try {
    handle = await open(file, 'a', 0o600);
  } catch (err) {
    throw ioError(file, err);
  }
  const boundary = opts.boundary ?? ((): void => undefined);
  const synced = new SyncGroup(async () => {
    boundary();
    // A device (`--out /dev/null`) has nothing to make durable and refuses the fsync.
    await handle.sync().catch((err: unknown) => {
      if (!NO_SYNC.has((err as NodeJS.ErrnoException).code ?? '')) throw err;
    });
  });
  let chain: Promise<void> = Promise.resolve();
  // --resume after a crash that cut a line: the cut line stays as it is, and the first new line
  // starts on a line of its own (docs/reliability.md #147).
  let prefix = opts.freshLine === true ? '\n' : '';
  return {
    write: (line) => {
      const appended = chain.then(async () => {
        boundary();
        await handle.appendFile(prefix + line, 'utf8');
        prefix = '';
      });
      chain = appended.catch(() => undefined);
      return appended
        .then(() => synced.sync())
        .catch((err: unknown) => {
          throw ioError(file, err);
        });
    },
    close: async () => {
      await chain;
      await handle.close();
    },
  };
}
