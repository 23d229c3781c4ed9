import { randomBytes } from 'node:crypto';
import { open, rename, unlink } from 'node:fs/promises';
import path from 'node:path';
import { NsedError } from '../../errors.js';

/**
 * Writes `text` to `file` so that a reader (or a crash) sees the old file or the whole new one,
 * never a part: a unique temp file beside it (mode 0600 from creation: an export holds a
 * whole conversation), fsync, rename over the target, fsync of the directory.
 */
export async function writeFileAtomic(file: string, text: string): Promise<void> {
  const target = path.resolve(file);
  const dir = path.dirname(target);
  const tmp = path.join(dir, `.${path.basename(target)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    const handle = await open(tmp, 'wx', 0o600);
    try {
      await handle.writeFile(text, 'utf8');
      // The mode argument is filtered by the umask; 0600 is what the file must end up with.
      await handle.chmod(0o600);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(tmp, target);
  } catch (err) {
    await unlink(tmp).catch(() => undefined);
    const code = (err as NodeJS.ErrnoException).code ?? String(err);
    throw new NsedError('usage', `cannot write ${target}: ${code}`, {
      cause: err,
      hint: 'check that the directory exists and is writable',
    });
  }
  await syncDir(dir);
}

/** Makes the rename itself durable; some file systems refuse to open a directory, which is fine. */
async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r').catch(() => undefined);
  if (handle === undefined) return;
  try {
    await handle.sync();
  } catch {
    // EINVAL/EISDIR on platforms without directory fsync: the data itself is already synced.
  } finally {
    await handle.close();
  }
}
