import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { colorEnabled, createIO } from '../../src/terminal/create-io.js';
import { createStyle } from '../../src/terminal/style.js';
import { Capture } from './memory-io.js';

describe('colour on stderr (reliability #70)', () => {
  const cases: Array<[string, Record<string, string | undefined>, boolean, { noColor?: boolean }, boolean]> = [
    ['a terminal gets colour', {}, true, {}, true],
    ['a pipe gets none', {}, false, {}, false],
    ['NO_COLOR turns it off on a terminal', { NO_COLOR: '1' }, true, {}, false],
    ['an empty NO_COLOR is ignored', { NO_COLOR: '' }, true, {}, true],
    ['--no-color turns it off on a terminal', {}, true, { noColor: true }, false],
    ['--no-color wins over FORCE_COLOR', { FORCE_COLOR: '1' }, true, { noColor: true }, false],
    ['FORCE_COLOR=1 forces it on a pipe', { FORCE_COLOR: '1' }, false, {}, true],
    ['FORCE_COLOR=3 forces it on a pipe', { FORCE_COLOR: '3' }, false, {}, true],
    ['FORCE_COLOR=true forces it on a pipe', { FORCE_COLOR: 'true' }, false, {}, true],
    ['FORCE_COLOR wins over NO_COLOR', { FORCE_COLOR: '2', NO_COLOR: '1' }, false, {}, true],
    ['FORCE_COLOR=0 turns it off on a terminal', { FORCE_COLOR: '0' }, true, {}, false],
    ['FORCE_COLOR=false turns it off on a terminal', { FORCE_COLOR: 'false' }, true, {}, false],
    ['TERM=dumb gets none', { TERM: 'dumb' }, true, {}, false],
  ];
  for (const [name, env, tty, flags, expected] of cases) {
    it(name, () => {
      expect(colorEnabled(env, tty, flags)).toBe(expected);
    });
  }
});

describe('createIO', () => {
  it('reads isTTY from each stream and carries quiet', () => {
    const stdin = Object.assign(new PassThrough(), { isTTY: true });
    const io = createIO({ stdout: new Capture(true), stderr: new Capture(false), stdin }, {}, { quiet: true });
    expect(io).toMatchObject({ stdoutIsTTY: true, stderrIsTTY: false, stdinIsTTY: true, color: false, quiet: true });
  });

  it('treats a stream without isTTY as no terminal', () => {
    const io = createIO({ stdout: new PassThrough(), stderr: new PassThrough(), stdin: new PassThrough() }, {}, {});
    expect(io).toMatchObject({ stdoutIsTTY: false, stderrIsTTY: false, stdinIsTTY: false, color: false, quiet: false });
  });
});

describe('createStyle', () => {
  it('wraps text in ANSI codes only when io.color is on', () => {
    expect(createStyle({ color: true }).dim('x')).toBe('\x1b[2mx\x1b[22m');
    expect(createStyle({ color: true }).red('x')).toBe('\x1b[31mx\x1b[39m');
    const off = createStyle({ color: false });
    expect([off.dim('x'), off.bold('x'), off.red('x'), off.yellow('x'), off.green('x'), off.cyan('x')]).toEqual([
      'x',
      'x',
      'x',
      'x',
      'x',
      'x',
    ]);
  });
});
