import { describe, expect, it } from 'vitest';
import type { NsedEvent } from '../../src/events/events.js';
import { createRenderer } from '../../src/output/renderer.js';
import { memoryIO, settle } from '../terminal/memory-io.js';
import { renderScreen } from '../terminal/screen.js';
import { candidate, finish, render, script, scriptProgress, turnStart } from './script.js';

const dim = (line: string): string => `\x1b[2m${line}\x1b[22m`;

describe('text output', () => {
  it('writes exactly the answer, ended by a newline, to a piped stdout and one dim line per step to stderr', async () => {
    const { io, stdout, stderr } = memoryIO();
    await render('text', io, script);
    expect(stdout.text).toBe('Hello, world.\n');
    expect(stderr.text).toBe(scriptProgress.map((l) => `${l}\n`).join(''));
  });

  it('ends the answer with a newline on a terminal stdout', async () => {
    const { io, stdout } = memoryIO({ stdoutTTY: true });
    await render('text', io, script);
    expect(stdout.text).toBe('Hello, world.\n');
  });

  it('does not add a second newline on a terminal when the answer already ends with one', async () => {
    const { io, stdout } = memoryIO({ stdoutTTY: true });
    await render('text', io, [
      turnStart,
      { type: 'text', text: 'done\n' },
      { ...finish, content: 'done\n' } as NsedEvent,
    ]);
    expect(stdout.text).toBe('done\n');
  });

  it('prints nothing on stderr with -q, and still the answer on stdout', async () => {
    const { io, stdout, stderr } = memoryIO({ quiet: true, stderrTTY: true });
    await render('text', io, script, { showSessionHint: true });
    expect(stdout.text).toBe('Hello, world.\n');
    expect(stderr.text).toBe('');
  });

  it('dims every stderr line when colour is forced', async () => {
    const { io, stderr } = memoryIO({ env: { FORCE_COLOR: '1' } });
    await render('text', io, script);
    expect(stderr.text).toBe(scriptProgress.map((l) => `${dim(l)}\n`).join(''));
  });

  it('uses no colour with NO_COLOR, even on a terminal', async () => {
    const { io, stderr } = memoryIO({ stderrTTY: true, env: { NO_COLOR: '1' } });
    // Wide enough for the script's longest line whole (narrower ones: test/output/printed-rows.test.ts).
    stderr.columns = 120;
    await render('text', io, script);
    expect(stderr.text).toBe(scriptProgress.map((l) => `${l}\n`).join(''));
  });

  it('uses colour on a terminal stderr by default', async () => {
    const { io, stderr } = memoryIO({ stderrTTY: true, env: {} });
    await render('text', io, script.slice(0, 2));
    expect(stderr.text).toBe(`${dim(scriptProgress[0] as string)}\n`);
  });

  it('tells how to continue the session when asked to', async () => {
    const { io, stderr } = memoryIO();
    await render('text', io, script, { showSessionHint: true });
    expect(stderr.text.endsWith('session s1 · continue: nsed continue -s s1 "…"\n')).toBe(true);
  });

  it('prints the answer of a turn that arrives only in the finish event (--no-stream)', async () => {
    const { io, stdout } = memoryIO({ stdoutTTY: true });
    await render('text', io, [turnStart, { type: 'job', job_id: 'job-1' }, finish]);
    expect(stdout.text).toBe('Hello, world.\n');
  });

  it('prints nothing for an error event, but moves a terminal to a fresh line', async () => {
    const err: NsedEvent = {
      type: 'error',
      code: 'network',
      exit_code: 6,
      message: 'connection reset',
      verdict: null,
      gate: null,
      status: null,
    };
    const piped = memoryIO();
    await render('text', piped.io, [turnStart, { type: 'text', text: 'partial' }, err]);
    expect(piped.stdout.text).toBe('partial');
    expect(piped.stderr.text).toBe('');
    const tty = memoryIO({ stdoutTTY: true });
    await render('text', tty.io, [turnStart, { type: 'text', text: 'partial' }, err]);
    expect(tty.stdout.text).toBe('partial\n');
  });

  it('shows a requested tool call on one sanitised, bounded line', async () => {
    const { io, stderr } = memoryIO();
    const args = `{"cmd":"rm -rf ~\x1b]52;c;AAAA\x07",\n"pad":"${'x'.repeat(200)}"}`;
    await render('text', io, [turnStart, { type: 'tool-call', id: 'c1', name: 'shell\x1b[2J', arguments: args }]);
    expect(stderr.text).toMatch(/^tool call shell \{"cmd":"rm -rf ~", "pad":"x+… · c1\n$/);
    expect(stderr.text.length).toBeLessThan(160);
  });

  it('shows how each call was settled: exit status, duration and a short result', async () => {
    const { io, stderr } = memoryIO();
    const base = { type: 'tool-result' as const, id: 'c1', name: 'calc', duration_ms: null };
    await render('text', io, [
      turnStart,
      { ...base, content: '4', exit_code: 0, status: 'ok', duration_ms: 12.4 },
      { ...base, content: 'error: tool calc exited with status 3: down', exit_code: 3, status: 'error' },
      {
        ...base,
        content: 'error: tool calc did not finish within 1 s and was stopped',
        exit_code: null,
        status: 'timeout',
      },
      { ...base, content: "error: tool 'rm' was not declared", exit_code: null, status: 'refused' },
      { ...base, content: '', exit_code: null, status: 'expired' },
    ]);
    expect(stderr.text.split('\n')).toEqual([
      'tool result calc · exit 0 · 12 ms: 4',
      'tool result calc · exit 3: error: tool calc exited with status 3: down',
      'tool result calc · timeout: error: tool calc did not finish within 1 s and was stopped',
      "tool result calc · refused: error: tool 'rm' was not declared",
      'tool result calc · expired: no answer arrived in time; the council goes on without it',
      '',
    ]);
  });

  it('writes each piece of the answer as it arrives, before the turn ends', async () => {
    const { io, stdout } = memoryIO();
    const renderer = await createRenderer('text', io);
    renderer.onEvent(turnStart);
    renderer.onEvent({ type: 'text', text: 'first ' });
    await settle();
    expect(stdout.text).toBe('first ');
    renderer.onEvent({ type: 'text', text: 'second' });
    await settle();
    expect(stdout.text).toBe('first second');
    renderer.onEvent(finish);
    await renderer.close();
  });

  it('names no leader when a scored round has no candidates', async () => {
    const { io, stderr } = memoryIO();
    await render('text', io, [{ type: 'round', round: 3, total_rounds: 3, progress: 1, scored: true, candidates: [] }]);
    expect(stderr.text).toBe('round 3/3 · 0 candidates\n');
  });

  it('leaves no spinner frame behind on a terminal shared by stdout and stderr, only whole lines', async () => {
    const { io, stdout } = memoryIO({ sharedTerminal: true, env: { NO_COLOR: '1' } });
    // Wide enough for the script's longest line whole (narrower ones: test/output/printed-rows.test.ts).
    stdout.columns = 120;
    const renderer = await createRenderer('text', io);
    for (const e of script.slice(0, 5)) renderer.onEvent(e);
    // The spinner draws the new progress on its next frame: wait for that frame, however late it comes.
    const frame = /^[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] evaluating · round 1\/5 · \d+s · convergence 45% · leader CortexA 0\.47$/;
    await stdout.until((text) => frame.test(renderScreen(text).at(-1) ?? ''));
    expect(renderScreen(stdout.text).at(-1)).toMatch(frame);
    for (const e of script.slice(5)) renderer.onEvent(e);
    await renderer.close();
    await settle();
    expect(renderScreen(stdout.text)).toEqual([...scriptProgress, 'Hello, world.']);
  });

  it('never puts spinner bytes on stdout when only stderr is a terminal', async () => {
    const { io, stdout, stderr } = memoryIO({ stderrTerminal: true });
    // Wide enough for the script's longest line whole (narrower ones: test/output/printed-rows.test.ts).
    stderr.columns = 120;
    await render('text', io, script);
    expect(stdout.text).toBe('Hello, world.\n');
    expect(stderr.text).toMatch(/evaluating · round 1\/5/);
    expect(renderScreen(stderr.text)).toEqual(scriptProgress);
  });

  it('starts no spinner before the turn starts, so an unused renderer cannot keep the process alive', async () => {
    const { io, stderr } = memoryIO({ stderrTerminal: true });
    const renderer = await createRenderer('text', io);
    // A started spinner draws its first frame at once (ora renders in start()), so nothing to wait for.
    expect(stderr.text).toBe('');
    await renderer.close();
  });

  it('starts a progress line on a fresh line when the answer is mid-line on a shared terminal', async () => {
    const { io, stdout } = memoryIO({ sharedTerminal: true, quiet: false });
    await render('text', io, [
      turnStart,
      { type: 'text', text: 'half' },
      { type: 'round', round: 2, total_rounds: 2, progress: 1, scored: true, candidates: [candidate('A', 0.5)] },
      { type: 'text', text: ' more' },
      { ...finish, content: 'half more' } as NsedEvent,
    ]);
    // No job line named the session, so a line of its own does, after the answer.
    expect(renderScreen(stdout.text)).toEqual([
      'half',
      'round 2/2 · 1 candidate · leader A 0.50',
      ' more',
      'session s1 · policy nsed:deep',
    ]);
  });
});
