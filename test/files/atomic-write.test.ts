// The one atomic write and its fsync rule (docs/reliability.md #56, #82): the file is fsynced
// before its rename and the directory after it, unless the caller says `durable: false`; an
// exclusive write never replaces a file; a failed write leaves the old file and no temp file.
import { statSync } from 'node:fs';
import { readFile, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { realDisk, writeAtomic, type DiskOps } from '../../src/files/atomic-write.js';
import { tempHome } from '../harness/temp-store.js';

/** The real disk, counting the fsyncs of files and of directories. */
function countingDisk(dir: string): { disk: DiskOps; syncs: string[] } {
  const syncs: string[] = [];
  const disk: DiskOps = {
    ...realDisk,
    open: async (file, flags, mode) => {
      const handle = await realDisk.open(file, flags, mode);
      return {
        ...handle,
        sync: async () => {
          syncs.push(file === dir ? 'dir' : 'file');
          await handle.sync();
        },
      };
    },
  };
  return { disk, syncs };
}

describe('writeAtomic', () => {
  it('fsyncs the file, renames it into place, then fsyncs the directory; mode 0600 whatever the umask', async () => {
    const dir = await tempHome();
    const file = path.join(dir, 'a.json');
    await writeFile(file, 'old', { mode: 0o644 });
    const { disk, syncs } = countingDisk(dir);
    const old = process.umask(0);
    try {
      await writeAtomic(file, 'new', { disk });
    } finally {
      process.umask(old);
    }
    expect(syncs).toEqual(['file', 'dir']);
    expect(await readFile(file, 'utf8')).toBe('new');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(await readdir(dir)).toEqual(['a.json']);
  });

  it('durable: false skips only the directory fsync (the marker over a claim, reliability #36)', async () => {
    const dir = await tempHome();
    const { disk, syncs } = countingDisk(dir);
    await writeAtomic(path.join(dir, 'b.json'), 'x', { disk, durable: false });
    expect(syncs).toEqual(['file']);
  });

  it('exclusive: an existing file is never replaced (EEXIST), and no temp file is left', async () => {
    const dir = await tempHome();
    const file = path.join(dir, 'c.json');
    await writeFile(file, 'first');
    const err = await writeAtomic(file, 'second', { exclusive: true }).catch((e: unknown) => e);
    expect((err as NodeJS.ErrnoException).code).toBe('EEXIST');
    expect(await readFile(file, 'utf8')).toBe('first');
    expect(await readdir(dir)).toEqual(['c.json']);
  });

  it('a failed rename or a refusing beforeCommit leaves the old file and no temp file', async () => {
    const dir = await tempHome();
    const file = path.join(dir, 'd.json');
    await writeFile(file, 'kept');
    const full: DiskOps = {
      ...realDisk,
      rename: () => Promise.reject(Object.assign(new Error('ENOSPC'), { code: 'ENOSPC' })),
    };
    const err = await writeAtomic(file, 'lost', { disk: full }).catch((e: unknown) => e);
    expect((err as NodeJS.ErrnoException).code).toBe('ENOSPC');
    const refused = await writeAtomic(file, 'lost', {
      beforeCommit: () => {
        throw new Error('lock lost');
      },
    }).catch((e: unknown) => e);
    expect((refused as Error).message).toBe('lock lost');
    expect(await readFile(file, 'utf8')).toBe('kept');
    expect(await readdir(dir)).toEqual(['d.json']);
  });
});
