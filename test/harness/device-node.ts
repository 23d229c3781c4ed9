import { execFileSync } from 'node:child_process';

/**
 * A character device like /dev/null (1,3) or /dev/full (1,7) made with mknod at `file`, or
 * undefined where making device nodes is not permitted (the caller skips, saying why).
 */
export function makeDevice(file: string, minor: 3 | 7): string | undefined {
  try {
    execFileSync('mknod', [file, 'c', '1', String(minor)], { stdio: 'ignore' });
    return file;
  } catch {
    return undefined;
  }
}
