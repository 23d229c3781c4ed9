import { spawn, spawnSync } from 'node:child_process';
import { CLI, type Rig } from '../harness/rig.js';

// util-linux `script` gives the command a pseudo-terminal: the only honest way to see what a
// person at a terminal sees. Its pty is never sized (0 columns), so progress comes as plain lines.
export const haveScript = spawnSync('script', ['--version']).status === 0;

/**
 * Runs the CLI on a pseudo-terminal (stdin, stdout and stderr all on it); the output as the
 * terminal got it. `columns` sizes the pty first (with `stty`), as a real terminal would be.
 */
export function onTerminal(
  rig: Rig,
  args: string[],
  env: Record<string, string> = {},
  columns?: number,
): Promise<{ code: number | null; screen: string }> {
  const cli = [process.execPath, CLI, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const quoted = columns === undefined ? cli : `stty cols ${columns} rows 24 && exec ${cli}`;
  return new Promise((resolve) => {
    const child = spawn('script', ['-qec', quoted, '/dev/null'], {
      env: {
        PATH: process.env['PATH'] ?? '',
        NSED_HOME: rig.home,
        NSED_URL: rig.sim.url,
        NO_COLOR: '1',
        TERM: 'xterm',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let screen = '';
    child.stdout.on('data', (d: Buffer) => (screen += d.toString()));
    child.stderr.on('data', (d: Buffer) => (screen += d.toString()));
    child.on('close', (code) => resolve({ code, screen: screen.replace(/\r/g, '') }));
  });
}
