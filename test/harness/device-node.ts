import { execFileSync } from 'node:child_process';

/**
 * A character device like /dev/null (1,3), /dev/zero (1,5), /dev/full (1,7) or /dev/urandom
 * (1,9) made with mknod at `file`, or undefined where making device nodes is not permitted (the
 * caller skips, saying why).
 */
export function makeDevice(file: string, minor: 3 | 5 | 7 | 9): string | undefined {
  try {
    execFileSync('mknod', [file, 'c', '1', String(minor)], { stdio: 'ignore' });
    return file;
  } catch {
    return undefined;
  }
}
