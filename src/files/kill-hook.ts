import { constants } from 'node:fs';
import type { DiskHandle, DiskOps } from './atomic-write.js';

/**
 * A test hook, not a setting (docs/reliability.md #260): with NSED_TEST_KILL_AT_WRITE=N in its
 * environment, the process sends itself SIGKILL just before its Nth write boundary (each call
 * that changes a file: a temp file opened, written, fsynced; a rename or link; a directory or
 * results-file fsync; a result line appended), counted over the whole process. The kill test of
 * the batch's group commit picks N at random over a run's boundaries, so it dies at a chosen
 * point of a chosen write with no clock involved. Unset (always, outside that test), nothing is
 * wrapped and nothing counts.
 */
export type WriteBoundary = () => void;

let count = 0;

export function killHook(env: Readonly<Record<string, string | undefined>>): WriteBoundary | undefined {
  const at = Number(env['NSED_TEST_KILL_AT_WRITE']);
  if (!Number.isInteger(at) || at < 1) return undefined;
  return () => {
    count++;
    if (count >= at) process.kill(process.pid, 'SIGKILL');
  };
}

/** `disk` with `boundary()` before each call that changes a file. */
export function killingDisk(disk: DiskOps, boundary: WriteBoundary): DiskOps {
  const handle = (h: DiskHandle): DiskHandle => ({
    chmod: (mode) => h.chmod(mode),
    writeFile: (data) => {
      boundary();
      return h.writeFile(data);
    },
    readFile: () => h.readFile(),
    sync: () => {
      boundary();
      return h.sync();
    },
    close: () => h.close(),
  });
  return {
    open: async (file, flags, mode) => {
      const writing =
        typeof flags === 'string' ? flags.includes('w') : (flags & (constants.O_WRONLY | constants.O_RDWR)) !== 0;
      if (writing) boundary();
      return handle(await disk.open(file, flags, mode));
    },
    rename: (from, to) => {
      boundary();
      return disk.rename(from, to);
    },
    link: (from, to) => {
      boundary();
      return disk.link(from, to);
    },
    unlink: (file) => {
      boundary();
      return disk.unlink(file);
    },
    access: (file) => disk.access(file),
  };
}
