import { describe, expect, it } from 'vitest';
import { createSpinner, startSpinner } from '../../src/terminal/spinner.js';
import { drawOn } from '../harness/screen.js';
import { memoryIO, settle } from './memory-io.js';
import { renderScreen } from './screen.js';

const FRAME = /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/;

describe('startSpinner', () => {
  it('draws on a terminal stderr, redraws around printed lines and leaves nothing behind when stopped', async () => {
    const { io, stderr } = memoryIO({ stderrTerminal: true });
    const spinner = await startSpinner(io, 'deliberating');
    expect(spinner.spinning).toBe(true);
    spinner.update('deliberating · round 2/5');
    spinner.clearWhile(() => stderr.write('a progress line\n'));
    await settle();
    expect(stderr.text).toMatch(FRAME);
    expect(renderScreen(stderr.text)).toEqual(['a progress line', expect.stringMatching(/deliberating · round 2\/5$/)]);
    spinner.stop();
    spinner.stop();
    await settle();
    expect(spinner.spinning).toBe(false);
    expect(renderScreen(stderr.text)).toEqual(['a progress line']);
  });

  it('fits the status row to the terminal by display width: wide characters from the server never wrap it (reliability #165)', async () => {
    const { io, stderr } = memoryIO({ stderrTerminal: true });
    (io.stderr as { columns?: number }).columns = 40;
    const spinner = await startSpinner(io, 'deliberating');
    spinner.update('evaluating · leader 数据库专家数据库专家数据库专家数据库专家 0.75');
    spinner.clearWhile(() => stderr.write('a line\n'));
    await settle();
    const cjk = await drawOn(stderr.text, 40);
    spinner.update('evaluating · leader 🧑‍💻🧑‍💻🧑‍💻🧑‍💻🧑‍💻🧑‍💻🧑‍💻🧑‍💻🧑‍💻🧑‍💻🧑‍💻🧑‍💻🧑‍💻🧑‍💻 0.75');
    spinner.clearWhile(() => stderr.write('another\n'));
    await settle();
    const emoji = await drawOn(stderr.text, 40);
    spinner.stop();
    expect(cjk.filter((r) => r.wrapped)).toEqual([]);
    expect(cjk.map((r) => r.text)).toEqual(['a line', expect.stringMatching(/^\S evaluating · leader 数据.*…$/u)]);
    expect(emoji.filter((r) => r.wrapped)).toEqual([]);
    expect(emoji.map((r) => r.text)).toEqual([
      'a line',
      'another',
      expect.stringMatching(/^\S evaluating · leader 🧑‍💻.*…$/u),
    ]);
  });

  it('draws nothing when stderr is a pipe (reliability #70)', async () => {
    const { io, stderr } = memoryIO({ stderrTTY: false });
    const spinner = await startSpinner(io, 'deliberating');
    spinner.update('deliberating · round 1/2');
    spinner.clearWhile(() => stderr.write('line\n'));
    spinner.stop();
    await settle();
    expect(spinner.spinning).toBe(false);
    expect(stderr.text).toBe('line\n');
  });

  it('draws nothing with -q even on a terminal', async () => {
    const { io, stderr } = memoryIO({ stderrTerminal: true, quiet: true });
    const spinner = await startSpinner(io, 'deliberating');
    spinner.stop();
    await settle();
    expect(spinner.spinning).toBe(false);
    expect(stderr.text).toBe('');
  });
});

describe('createSpinner', () => {
  it('draws nothing until started, and never after being stopped', async () => {
    const { io, stderr } = memoryIO({ stderrTerminal: true });
    const idle = await createSpinner(io, 'deliberating');
    idle.clearWhile(() => stderr.write('line\n'));
    idle.stop();
    idle.start();
    await settle();
    expect(idle.spinning).toBe(false);
    expect(stderr.text).toBe('line\n');
  });
});

describe('a terminal of 0 columns', () => {
  it('draws nothing: a pty nobody sized must not be flooded with cursor codes', async () => {
    const { io, stderr } = memoryIO({ stderrTerminal: true });
    (io.stderr as { columns?: number }).columns = 0;
    const spinner = await startSpinner(io, 'deliberating');
    spinner.clearWhile(() => stderr.write('line\n'));
    spinner.stop();
    await settle();
    expect(spinner.spinning).toBe(false);
    expect(stderr.text).toBe('line\n');
  });
});
