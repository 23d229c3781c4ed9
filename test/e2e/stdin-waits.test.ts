// Standard input as a real process sees it: a pipe the test holds open and closes only once the
// process has said what it waits for, so nothing here races a clock (docs/reliability.md #110, #111).
import { describe, expect, it } from 'vitest';
import { STDIN_FIRST_BYTE_MS, STDIN_NOTICE_MS } from '../../src/input/prompt.js';
import type { Clock } from '../../src/run/context.js';
import { waitForOutput, useRig } from '../harness/rig.js';

const rig = useRig();

const lastUserMessage = (): string => {
  const req = rig.sim.requests.filter((r) => r.path === '/v1/chat/completions').at(-1);
  const messages = (req?.body as { messages?: Array<{ role: string; content: string }> } | undefined)?.messages ?? [];
  return messages.filter((m) => m.role === 'user').at(-1)?.content ?? '';
};

const NOT_READ =
  'nsed: warning: standard input was not read: nothing arrived in time; to wait for it, put - among the words or use -f -\n';

describe('no silent loss of piped input (reliability #110)', () => {
  it('a slow producer: the words go alone, and one stderr line says stdin was not read and how to wait for it', async () => {
    const child = rig.spawn(['ask', '-o', 'final', 'why did this fail?'], { stdin: 'inherit-open' });
    await waitForOutput(child, (out) => out.includes('standard input was not read'));
    // The producer writes only now, after nsed went on without it.
    child.stdin?.end('ERROR: disk full\n');
    const r = await child.result;
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(NOT_READ);
    expect(lastUserMessage()).toBe('why did this fail?');
  });

  it('with --verbose the line says how long nsed waited; -q keeps it (a warning, not a note)', async () => {
    const verbose = rig.spawn(['ask', '--verbose', '-o', 'final', 'q'], { stdin: 'inherit-open' });
    await waitForOutput(verbose, (out) => out.includes('standard input was not read'));
    verbose.stdin?.end();
    const v = await verbose.result;
    expect(v.code).toBe(0);
    expect(v.stderr).toContain(
      `nsed: warning: standard input was not read: nothing arrived in time (waited ${STDIN_FIRST_BYTE_MS} ms); to wait for it, put - among the words or use -f -\n`,
    );
    const quiet = rig.spawn(['ask', '-q', '-o', 'final', 'q'], { stdin: 'inherit-open' });
    await waitForOutput(quiet, (out) => out.includes('standard input was not read'));
    quiet.stdin?.end();
    expect((await quiet.result).stderr).toBe(NOT_READ);
  });

  it('- waits for the producer past the window, saying what it waits for, and sends what came', async () => {
    const child = rig.spawn(['ask', '-o', 'final', 'why did this fail?', '-'], { stdin: 'inherit-open' });
    await waitForOutput(child, (out) => out.includes('waiting for the prompt (-) on standard input'));
    child.stdin?.end('ERROR: disk full\n');
    const r = await child.result;
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(
      'waiting for the prompt (-) on standard input… (end it with Ctrl-D; --timeout bounds the wait)\n',
    );
    expect(lastUserMessage()).toBe('why did this fail? ERROR: disk full');
  });

  it('-f - waits for EOF as well, and the input becomes a fenced file', async () => {
    const child = rig.spawn(['ask', '-o', 'final', '-f', '-', 'why did this fail?'], { stdin: 'inherit-open' });
    await waitForOutput(child, (out) => out.includes('waiting for the file -f - on standard input'));
    child.stdin?.end('ERROR: disk full\n');
    const r = await child.result;
    expect(r.code).toBe(0);
    expect(lastUserMessage()).toBe('why did this fail?\n\n```stdin\nERROR: disk full\n```');
  });
});

describe('--timeout bounds the read of the prompt (reliability #111)', () => {
  it('no words and a silent open pipe: exit 124 once --timeout passes, nothing sent', async () => {
    const before = rig.sim.requests.length;
    const child = rig.spawn(['ask', '--timeout', '1', '-o', 'final'], { stdin: 'inherit-open' });
    const r = await child.result;
    child.stdin?.destroy();
    expect(r.code).toBe(124);
    expect(r.stderr).toContain('nsed: nothing ended standard input within --timeout 1 s');
    expect(rig.sim.requests.length).toBe(before);
  });

  it('- and -f - likewise', async () => {
    for (const args of [
      ['q', '-'],
      ['-f', '-', 'q'],
    ]) {
      const child = rig.spawn(['ask', '--timeout', '0.5', ...args], { stdin: 'inherit-open' });
      const r = await child.result;
      child.stdin?.destroy();
      expect({ args, code: r.code }).toEqual({ args, code: 124 });
    }
  });

  it('in-process, the deadline and the notice come from the Context clock (no test waits them out)', async () => {
    // Sleeps end at once: the notice is due at once, and so is the deadline.
    const instant: Clock = { now: () => new Date(), sleep: () => Promise.resolve() };
    const r = await rig.run(['ask', '--timeout', '30', '-o', 'final'], { openStdin: true, clock: instant });
    expect(r.code).toBe(124);
    expect(r.stderr).toContain('waiting for the prompt on standard input…');

    // Only the notice is due: the prompt arrives afterwards and is sent whole.
    let notice!: () => void;
    const noticed = new Promise<void>((resolve) => (notice = resolve));
    const clock: Clock = {
      now: () => new Date(),
      sleep: (ms, signal) =>
        ms === STDIN_NOTICE_MS
          ? Promise.resolve().then(notice)
          : new Promise((_resolve, reject) => signal?.addEventListener('abort', () => reject(new Error('aborted')))),
    };
    const run = rig.start(['ask', '-o', 'final'], { openStdin: true, clock });
    await noticed;
    await run.output((out) => out.includes('waiting for the prompt on standard input…'));
    run.stdin.end('the prompt, late\n');
    const late = await run.result;
    expect(late.code).toBe(0);
    expect(lastUserMessage()).toBe('the prompt, late');
  });
});
