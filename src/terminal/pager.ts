import { spawn } from 'node:child_process';
import type { IO } from './io.js';

/**
 * The pager command, as gh picks it: NSED_PAGER, then PAGER, then `less -FRX` (quit when it
 * fits one screen, keep colours, leave the text on screen). Empty or `cat` means no pager.
 */
export function pagerCommand(env: Readonly<Record<string, string | undefined>>): string | undefined {
  const cmd = (env['NSED_PAGER'] ?? env['PAGER'] ?? 'less -FRX').trim();
  return cmd === '' || cmd === 'cat' ? undefined : cmd;
}

/**
 * Shows `text` through the pager when stdout is a terminal; otherwise (a pipe, a file, no pager,
 * a pager that cannot start) returns false and the caller writes stdout itself. A pager is only
 * for a person: a script reading our stdout must get the bytes, never a pager in between.
 */
export async function page(io: IO, env: Readonly<Record<string, string | undefined>>, text: string): Promise<boolean> {
  const cmd = pagerCommand(env);
  const fd = (io.stdout as { fd?: unknown }).fd;
  if (!io.stdoutIsTTY || cmd === undefined || typeof fd !== 'number') return false;
  const child = spawn(cmd, {
    shell: true,
    stdio: ['pipe', io.stdout as NodeJS.WriteStream, io.stderr as NodeJS.WriteStream],
    // less without -R would show colour codes as text when the user's LESS lacks it.
    env: { ...env, LESS: env['LESS'] ?? 'FRX', LV: env['LV'] ?? '-c' },
  });
  const exited = new Promise<number | null>((resolve) => {
    child.once('error', () => resolve(null));
    child.once('close', (code) => resolve(code));
  });
  // A pager quit early (q in less) closes its stdin: that is the user's choice, not a failure.
  child.stdin?.on('error', () => undefined);
  child.stdin?.end(text);
  const code = await exited;
  // 126/127: the shell could not find or run the command; nothing was shown.
  return code !== null && code !== 126 && code !== 127;
}
