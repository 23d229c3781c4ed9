// The real CLI on a real pseudo-terminal, its bytes fed to a terminal emulator, so a test asserts
// on what a person would see on the screen (docs/reliability.md #165): rows, wrapping, the cursor.
// The pseudo-terminal is Python's `pty` module driven by ./pty-run.py (no native build, the same
// on every Node); the emulator is xterm.js's headless build, the parser VS Code's terminal runs.
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import xterm from '@xterm/headless';
import { WAIT_MS } from './limits.js';
import { CLI } from './process.js';

/** Whether this machine can make a pseudo-terminal the harness's way; skip with `NO_PTY` when not. */
export const HAS_PTY = spawnSync('python3', ['-c', 'import pty, termios, fcntl']).status === 0;
export const NO_PTY = 'python3 with its pty module is not on this machine: the screen tests need a pseudo-terminal';

const PTY_RUN = join(import.meta.dirname, 'pty-run.py');

/** One row of the emulator's buffer (scrollback included), as the person reads it. */
export interface Row {
  text: string;
  /** The row continues the one above: that line was wider than the terminal. */
  wrapped: boolean;
}

export interface ScreenOptions {
  columns: number;
  rows?: number;
  /** The whole environment of the command, over PATH and HOME (nothing else is inherited). */
  env: Record<string, string | undefined>;
  /** `pipe`: stdout is a pipe the test reads apart (`nsed ask q > answer.md`); else the terminal. */
  stdout?: 'terminal' | 'pipe';
  /**
   * What a live status row looks like (a spinner frame, the batch bar). Given, every chunk the
   * command writes is checked (see `screenProblems`) and what breaks a rule is kept in `problems`.
   */
  live?: RegExp;
}

export interface ScreenState {
  rows: Row[];
  /** Chunks after which a live row was on the screen: the frames drawn so far. */
  liveFrames: number;
}

export interface ScreenResult {
  code: number | null;
  /** What the command wrote to stdout, when it is a pipe. */
  stdout: string;
  /** Every row at the end, and where the cursor was left. */
  rows: Row[];
  cursor: { x: number; row: string };
  problems: string[];
  /** Every byte the terminal drew, the command's and the terminal's own echo of what was typed. */
  drawn: string;
}

export interface ScreenRun {
  /** Resolves once the screen satisfies `predicate`, checked after each chunk the command writes. */
  until(what: string, predicate: (state: ScreenState) => boolean): Promise<void>;
  /** Types on the terminal, as a person would (`\x03` is Ctrl-C). */
  type(keys: string): void;
  /** What broke a screen rule so far, each with the rows at that moment. */
  readonly problems: string[];
  result: Promise<ScreenResult>;
}

// Pieces of escape sequences drawn as text: `?2026h`, `[1G`, `[0K`, `[2m`; or a control character
// a terminal shows as nothing at all but a program meant to act.
// eslint-disable-next-line no-control-regex
const STRAY = /\?\d{1,4}[hl]|\[\d*(?:;\d*)*[A-HJKSTfmhlGsu]|[\x00-\x08\x0b-\x1f\x7f]/;

/**
 * What is wrong on a screen a person sees: characters of an escape sequence shown as text; more
 * than one live row (every frame that does not take its row back leaves one behind); a live row
 * that wrapped (wider than the terminal, so its first part stays on every redraw).
 */
export function screenProblems(rows: readonly Row[], live: RegExp | undefined): string[] {
  const problems: string[] = [];
  rows.forEach((r, i) => {
    const stray = STRAY.exec(r.text);
    if (stray !== null) problems.push(`row ${i} shows ${JSON.stringify(stray[0])} as text: ${JSON.stringify(r.text)}`);
  });
  if (live === undefined) return problems;
  const liveRows = rows.flatMap((r, i) => (live.test(r.text) ? [i] : []));
  if (liveRows.length > 1) problems.push(`${liveRows.length} live rows at once: ${liveRows.join(', ')}`);
  for (const i of liveRows)
    if (rows[i + 1]?.wrapped === true) problems.push(`the live row ${i} is wider than the terminal and wrapped`);
  return problems;
}

/** Runs `nsed args` on a pseudo-terminal of `opts.columns` columns, drawing on an emulator. */
export function onScreen(args: string[], opts: ScreenOptions): ScreenRun {
  const rowsTall = opts.rows ?? 24;
  const term = new xterm.Terminal({ cols: opts.columns, rows: rowsTall, scrollback: 100_000, allowProposedApi: true });
  const pipeStdout = opts.stdout === 'pipe';
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries({
    PATH: process.env['PATH'],
    HOME: process.env['HOME'],
    TERM: 'xterm-256color',
    ...opts.env,
  }))
    if (v !== undefined) env[k] = v;
  const child = spawn(
    'python3',
    [
      PTY_RUN,
      String(opts.columns),
      String(rowsTall),
      pipeStdout ? 'fd3' : 'terminal',
      '--',
      process.execPath,
      CLI,
      ...args,
    ],
    { env, stdio: ['pipe', 'pipe', 'pipe', 'pipe'] },
  );
  const keys = child.stdin as Writable;
  // What the terminal answers to a query (a cursor position report) goes back as typed input.
  term.onData((d) => keys.write(d));
  let ended: Row[] | undefined;
  const rows = (): Row[] => ended ?? rowsOf(term);
  const problems: string[] = [];
  const seen = new Set<string>();
  let liveFrames = 0;
  const waiters = new Set<() => void>();
  const afterChunk = (): void => {
    const now = rows();
    if (opts.live !== undefined && now.some((r) => opts.live?.test(r.text) === true)) liveFrames++;
    // Each kind of problem once, with the screen as it was when it first showed.
    for (const p of screenProblems(now, opts.live)) {
      if (seen.has(p)) continue;
      seen.add(p);
      problems.push(`${p}\n  screen:\n${now.map((r) => `  |${r.text}`).join('\n')}`);
    }
    for (const w of [...waiters]) w();
  };
  // Chunks are parsed in order; the check after each sees the screen as it was then.
  let parsed = Promise.resolve();
  let drawn = '';
  (child.stdout as Readable).on('data', (chunk: Buffer) => {
    drawn += chunk.toString('utf8');
    parsed = parsed.then(() => new Promise<void>((resolve) => term.write(chunk, resolve))).then(afterChunk);
  });
  let stdout = '';
  (child.stdio[3] as Readable).setEncoding('utf8').on('data', (d: string) => (stdout += d));
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const kill = setTimeout(() => child.kill('SIGKILL'), WAIT_MS);
  const result = new Promise<ScreenResult>((resolve) => {
    child.on('close', (code) => {
      clearTimeout(kill);
      void parsed.then(() => {
        if (stderr !== '') problems.push(`the pseudo-terminal's runner failed: ${stderr}`);
        const buffer = term.buffer.active;
        const cursorRow = buffer.getLine(buffer.baseY + buffer.cursorY)?.translateToString(true) ?? '';
        ended = rows();
        const end = { code, stdout, rows: ended, cursor: { x: buffer.cursorX, row: cursorRow }, problems, drawn };
        term.dispose();
        for (const w of [...waiters]) w();
        resolve(end);
      });
    });
  });
  return {
    problems,
    type: (k) => keys.write(k),
    until: (what, predicate) =>
      new Promise<void>((resolve, reject) => {
        const check = (): void => {
          if (predicate({ rows: rows(), liveFrames })) done();
          else if (ended !== undefined)
            done(new Error(`the command ended before the screen showed ${what}:\n${screen()}`));
        };
        const screen = (): string =>
          rows()
            .map((r) => `  |${r.text}`)
            .join('\n');
        const timer = setTimeout(() => done(new Error(`timed out waiting for ${what}:\n${screen()}`)), WAIT_MS);
        const done = (err?: Error): void => {
          clearTimeout(timer);
          waiters.delete(check);
          if (err === undefined) resolve();
          else reject(err);
        };
        waiters.add(check);
        check();
      }),
    result,
  };
}

/** Every row `bytes` leave on an emulator of `columns` columns: for bytes captured in-process. */
export function drawOn(bytes: string, columns: number, rowsTall = 24): Promise<Row[]> {
  const term = new xterm.Terminal({ cols: columns, rows: rowsTall, scrollback: 100_000, allowProposedApi: true });
  return new Promise((resolve) =>
    term.write(bytes, () => {
      const rows = rowsOf(term);
      term.dispose();
      resolve(rows);
    }),
  );
}

/** The buffer's rows, scrollback first, without the empty rows below the last one written. */
function rowsOf(term: InstanceType<typeof xterm.Terminal>): Row[] {
  const buffer = term.buffer.active;
  const out: Row[] = [];
  for (let i = 0; i < buffer.length; i++) {
    const line = buffer.getLine(i);
    if (line !== undefined) out.push({ text: line.translateToString(true), wrapped: line.isWrapped });
  }
  while (out.length > 0 && out[out.length - 1]?.text === '' && out[out.length - 1]?.wrapped === false) out.pop();
  return out;
}

/** The lines as written: each row joined with the rows that continue it (a line wider than the terminal). */
export function logicalLines(rows: readonly Row[]): string[] {
  const out: string[] = [];
  for (const r of rows) {
    if (r.wrapped && out.length > 0) out[out.length - 1] += r.text;
    else out.push(r.text);
  }
  return out;
}

/** The text of every row, for a failure message or a comparison. */
export const texts = (rows: readonly Row[]): string[] => rows.map((r) => r.text);

/**
 * The lines nsed printed, laid out in rows to the width (terminal/fit-rows.ts): a row that starts
 * indented continues the line above, and is kept after a `\n`, so a pattern sees where it broke.
 */
export function printedLines(rows: readonly Row[]): string[] {
  const out: string[] = [];
  for (const r of rows) {
    if (r.text.startsWith('  ') && out.length > 0) out[out.length - 1] += `\n${r.text}`;
    else out.push(r.text);
  }
  return out;
}

/**
 * A printed line's pattern (regex source, parts joined by ` · `) with the breaks nsed may make
 * in it: between parts (` · `, or a new indented row) and between words (a space, or a new
 * indented row). A word cut in two across rows does not match.
 */
export function laidOut(pattern: string): RegExp {
  const source = pattern
    .split(' · ')
    .map((part) => part.split(' ').join('(?: |\\n {2})'))
    .join('(?: · |\\n {2})');
  return new RegExp(`^${source}$`);
}
