import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { STDIN_FIRST_BYTE_MS, withContext } from '../../src/input/prompt.js';
import { CLI, useRig } from '../harness/rig.js';

const rig = useRig();

/** The user message of the newest chat request the simulator received. */
function lastUserMessage(): string {
  const req = rig.sim.requests.filter((r) => r.path === '/v1/chat/completions').at(-1);
  const messages = (req?.body as { messages?: Array<{ role: string; content: string }> } | undefined)?.messages ?? [];
  return messages.filter((m) => m.role === 'user').at(-1)?.content ?? '';
}

function bash(script: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const env = { PATH: process.env['PATH'] ?? '', NSED_HOME: rig.home, NSED_URL: rig.sim.url, NO_COLOR: '1' };
    const child = spawn('bash', ['-e', '-o', 'pipefail', '-c', script], {
      env,
      cwd: rig.home,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('piped standard input joins the words as context', () => {
  it('the layout: the question, a blank line, the input in a fence longer than any backtick run inside it', () => {
    expect(withContext('review this', 'a\nb\n')).toBe('review this\n\n```\na\nb\n```\n');
    expect(withContext('q', 'x ```` y')).toBe('q\n\n`````\nx ```` y\n`````\n');
  });

  it('a real pipe: printf DIFF | nsed ask "review this" sends the question with the diff fenced below it', async () => {
    const diff = 'diff --git a/x b/x\n-old\n+new\n';
    const r = await bash(`printf '%s' '${diff}' | "${process.execPath}" "${CLI}" ask -o final "review this"`);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(lastUserMessage()).toBe(`review this\n\n\`\`\`\n${diff}\`\`\``);
    // The session is titled by the question, not by the diff.
    expect(r.stdout.length).toBeGreaterThan(0);
  });

  it('a file on stdin is context too; `-` keeps its meaning (stdin stands where the dash is)', async () => {
    const r = await bash(`printf 'body' > in.txt; "${process.execPath}" "${CLI}" ask -o final "summarise" < in.txt`);
    expect(r.code).toBe(0);
    expect(lastUserMessage()).toBe('summarise\n\n```\nbody\n```');
    const dash = await bash(`printf 'the middle' | "${process.execPath}" "${CLI}" ask -o final "before" - "after"`);
    expect(dash.code).toBe(0);
    expect(lastUserMessage()).toBe('before the middle after');
  });

  it('an open pipe that never writes: the question alone is sent, one line says so, and the command finishes (exit 0)', async () => {
    const child = rig.spawn(['ask', '-o', 'final', 'question without context'], { stdin: 'inherit-open' });
    const r = await child.result;
    child.stdin?.destroy();
    expect(r.stderr).toBe(
      'nsed: warning: standard input was not read: nothing arrived in time; to wait for it, put - among the words or use -f -\n',
    );
    expect(r.code).toBe(0);
    expect(lastUserMessage()).toBe('question without context');
  });

  it('in-process, the harness default is a stdin already at its end: nothing added and no first-byte wait', async () => {
    const r = await rig.run(['ask', '--verbose', '-o', 'final', 'no wait for context']);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('stdin: empty; nothing added');
    expect(r.stderr).not.toContain('no input within');
    expect(lastUserMessage()).toBe('no wait for context');
  });

  it('in-process, an open stdin nobody writes to is let go after the first-byte wait (reliability #70)', async () => {
    const run = rig.start(['ask', '--verbose', '-o', 'final', 'silent pipe'], { openStdin: true });
    const r = await run.result;
    run.stdin.destroy();
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(
      `nsed: warning: standard input was not read: nothing arrived in time (waited ${STDIN_FIRST_BYTE_MS} ms)`,
    );
    expect(lastUserMessage()).toBe('silent pipe');
  });

  it('an empty pipe adds nothing', async () => {
    const r = await rig.run(['ask', '-o', 'final', 'just the words'], { stdin: '' });
    expect(r.code).toBe(0);
    expect(lastUserMessage()).toBe('just the words');
  });
});
