// How long one file create takes in the temp directory's file system, measured as the run starts
// and printed beside the load average. On ext4 without a journal (these machines), every inode
// freed in the last minute or more is stepped over by each later create in its block group: after
// a test run or any mass removal under /tmp a create took 1.2-1.5 ms instead of ~0.05, and each
// figure that writes a store (the one-shot's seven creates, the batch's thousand) paid for it
// (bench/RESULTS.md round 8). A run to quote starts on a quiet machine by this measure too.
import { closeSync, constants, mkdtempSync, openSync, rmdirSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import { median } from './stats.mjs';

const FILES = 50;

/** The median time of one exclusive create in a fresh directory under `dir`, in microseconds. */
export function createCost(dir) {
  const probe = mkdtempSync(path.join(dir, 'create-cost-'));
  const times = [];
  const names = [];
  try {
    for (let i = 0; i < FILES; i++) {
      const name = path.join(probe, String(i));
      const t = performance.now();
      closeSync(openSync(name, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY, 0o600));
      times.push((performance.now() - t) * 1000);
      names.push(name);
    }
  } finally {
    for (const name of names) unlinkSync(name);
    rmdirSync(probe);
  }
  return Math.round(median(times));
}
