import { spawn, spawnSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, useRig } from '../harness/rig.js';

const QUESTION = 'Plan our database migration; ask me what matters';
// util-linux `script` gives the CLI a real pseudo-terminal on stdin and stderr.
const hasScript = spawnSync('script', ['--version']).status === 0;

const rig = useRig({ toolWaitMs: 10 * 60_000 });

/** Runs `nsed args` under `script`, answers `reply` once the question's prompt shows, and collects the screen. */
function onTerminal(args: string[], reply: string): Promise<{ code: number | null; screen: string }> {
  const quoted = [process.execPath, CLI, ...args].map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(' ');
  // A pty made by script starts with 0 columns; give it a size like a real terminal's.
  const child = spawn('script', ['-q', '-e', '-c', `stty cols 100 rows 30; ${quoted}`, '/dev/null'], {
    env: { ...rig.env, PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let screen = '';
  let answered = false;
  const kill = setTimeout(() => child.kill('SIGKILL'), 120_000);
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    screen += d;
    if (!answered && screen.includes('answer (')) {
      answered = true;
      child.stdin.write(`${reply}\n`);
    }
  });
  return new Promise((resolve) =>
    child.on('close', (code) => {
      clearTimeout(kill);
      resolve({ code, screen });
    }),
  );
}

describe('--ask-user', () => {
  it.skipIf(!hasScript)(
    'on a terminal, puts the question and its options to the person, and the council uses the choice',
    async () => {
      const r = await onTerminal(['ask', '-p', 'fast', '-o', 'final', '--ask-user', QUESTION], '2');
      expect(r.code, r.screen).toBe(0);
      expect(r.screen).toMatch(/the council asks: Which matters more for .+\?/);
      const option2 = /\r?\n {2}2\) ([^\r\n]+)/.exec(r.screen)?.[1] ?? '';
      expect(option2).not.toBe('');
      expect(r.screen).toContain(`\`ask_user\` returned “${option2}”`);
    },
  );

  it('without a terminal, the question waits as a pending call (exit 10) and a file answers it', async () => {
    const first = await rig.run(['ask', '-p', 'fast', '--ask-user', QUESTION]);
    expect(first.code, first.stderr).toBe(10);
    const callId = /tool call ask_user .* · (call_[0-9a-f]+)/.exec(first.stderr)?.[1] ?? '';
    const session = /session (\S+)/.exec(first.stderr)?.[1] ?? '';
    expect(callId).not.toBe('');
    const answer = join(rig.home, 'answer.txt');
    await writeFile(answer, 'zero downtime\n');
    const done = await rig.run(['continue', '-s', session, '--tool-result', `${callId}=${answer}`, '-o', 'final']);
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toContain('`ask_user` returned “zero downtime”');
  });
});
