import type { Context } from '../run/context.js';
import { usageError } from '../errors.js';
import { MAX_FLAG_FILE_BYTES, boundsOf, readInputText, readStreamBytes, type WaitNotice } from '../files/read-input.js';

/**
 * yargs drops a lone `-` from positionals, so run-cli swaps it for this marker before
 * parsing and `promptWords` swaps it back.
 */
export const STDIN_MARKER = '\u0000nsed-stdin';

/**
 * How long a question given as words waits for the first byte of a piped standard input before
 * going on without it. Long enough for `git diff |` to start writing; short enough that a CI
 * job whose stdin is an open pipe nobody writes to is not held up (docs/usage.md "Standard input").
 */
export const STDIN_FIRST_BYTE_MS = 500;

/**
 * The words of a prompt: the positional words, then every word after `--` (yargs keeps those
 * apart), so `nsed ask -- -x is a flag?` asks about `-x`.
 */
export function promptWords(v: unknown, afterDashes?: unknown): string[] {
  const list = (x: unknown): string[] => (Array.isArray(x) ? x.map(String) : typeof x === 'string' ? [x] : []);
  return [...list(v), ...list(afterDashes)].map((w) => (w === STDIN_MARKER ? '-' : w));
}

/**
 * Whether a prompt says anything: a character other than white space and control or format
 * characters. One of nothing but those (a NUL, a zero-width space) would start a paid
 * deliberation on no question.
 */
export const hasText = (text: string): boolean => /[^\s\p{Cc}\p{Cf}]/u.test(text);

/**
 * How long a read of the prompt from standard input stays silent before nsed says what it waits
 * for: long enough that a producer which is merely slow says nothing, short enough that a person
 * who forgot to pipe something learns why nothing happens (docs/usage.md "Standard input").
 */
export const STDIN_NOTICE_MS = 3000;

/** What reading the prompt needs from the Context: the streams, the clock and --timeout. */
export type PromptContext = Pick<Context, 'io' | 'clock' | 'globals' | 'signal' | 'signalExit'>;

export interface PromptRules {
  /** Noun for messages: `prompt`, `message`. */
  what?: string;
  /** Piped input joins words given as context (ask, continue, fork); inject reads stdin only for `-`. */
  context?: boolean;
}

/**
 * The prompt rules (docs/usage.md "Standard input"): the words joined by spaces; `-` stands for
 * standard input; with no words and a stdin that is not a terminal, stdin is the prompt. With
 * words and a piped stdin, the input is context: read if its first byte arrives within
 * STDIN_FIRST_BYTE_MS, else left unread with a warning, so an open and silent stdin never hangs
 * a CI job (docs/reliability.md #70) and never loses a slow producer's input unsaid
 * (docs/reliability.md #110). Reading stdin to its end is bounded by --timeout
 * (docs/reliability.md #111).
 */
export async function readPrompt(
  words: readonly string[],
  ctx: PromptContext,
  rules: PromptRules = {},
): Promise<string> {
  const { io } = ctx;
  const what = rules.what ?? 'prompt';
  let text: string;
  if (words.length === 0) {
    if (io.stdinIsTTY)
      throw usageError(
        `no ${what} given`,
        `pass it as words, or pipe it on standard input (use - to read stdin explicitly)`,
      );
    text = await readStdin(ctx, `the ${what}`);
  } else if (words.includes('-')) {
    const stdin = await readStdin(ctx, `the ${what} (-)`);
    text = words.map((w) => (w === '-' ? stdin : w)).join(' ');
  } else {
    text = words.join(' ');
    if (rules.context === true && !io.stdinIsTTY) {
      const context = (await startsWithin(io.stdin, STDIN_FIRST_BYTE_MS))
        ? await readStdin(ctx, 'the piped context', MAX_STDIN_BYTES, { notice: false })
        : undefined;
      if (context === undefined) {
        const waited = io.verbose ? ` (waited ${STDIN_FIRST_BYTE_MS} ms)` : '';
        io.stderr.write(
          `nsed: warning: standard input was not read: nothing arrived in time${waited}; to wait for it, put - among the words or use -f -\n`,
        );
      } else {
        if (context.trim() !== '') text = withContext(text, context);
        if (io.verbose && !io.quiet)
          io.stderr.write(
            `stdin: ${context.trim() === '' ? 'empty; nothing added' : `${context.length} characters added as context`}\n`,
          );
      }
    }
  }
  if (!hasText(text))
    throw usageError(`the ${what} is empty`, 'give some words, or pipe non-empty text on standard input');
  return text.replace(/\r?\n$/, '');
}

/**
 * The documented layout of a question with piped context: the question, a blank line, then the
 * input in a fenced block (see `fenced`).
 */
export function withContext(question: string, context: string): string {
  return `${question}\n\n${fenced(context)}`;
}

/**
 * `body` in a fenced block whose fence is longer than any run of backticks inside it, so a
 * Markdown file or a diff of one cannot close it early; `info` (a file's path) follows the
 * opening fence.
 */
export function fenced(body: string, info = ''): string {
  const longest = Math.max(0, ...[...body.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  const text = body.endsWith('\n') || body === '' ? body : `${body}\n`;
  return `${fence}${info}\n${text}${fence}\n`;
}

/**
 * Standard input to its end, for a prompt or a file that must be waited for (`-`, `-f -`), read
 * by the one reader (src/files/read-input.ts): bounded by --timeout (exit 124), ended by Ctrl-C
 * (130), at most `maxBytes`; after STDIN_NOTICE_MS of silence one line on stderr says what nsed
 * waits for, so a forgotten pipe is not mistaken for a hang.
 */
export async function readStdin(
  ctx: PromptContext,
  what: string,
  maxBytes = MAX_STDIN_BYTES,
  // Piped context is read only once its first byte came: nothing to say while it flows.
  { notice = true }: { notice?: boolean } = {},
): Promise<string> {
  const { io } = ctx;
  const waiting: WaitNotice = {
    afterMs: STDIN_NOTICE_MS,
    say: () => {
      if (!io.quiet)
        io.stderr.write(`waiting for ${what} on standard input… (end it with Ctrl-D; --timeout bounds the wait)\n`);
    },
  };
  const bytes = await readStreamBytes(io.stdin, {
    label: 'standard input',
    maxBytes,
    ...boundsOf(ctx),
    overCapHint: 'give it as a file',
    timeoutHint: `nsed read ${what} there; close the pipe (or give the words) to go on`,
    ...(notice ? { onWait: waiting } : {}),
  });
  return bytes.toString('utf8');
}

/** The most standard input read to its end may hold: past it, the input belongs in a file. */
export const MAX_STDIN_BYTES = 64 * 1024 * 1024;

/**
 * A text file a flag names (`--schema`, `--gates`, `--tools`, `--template`, `--vars`, the batch
 * file, a tool's result), read by the one reader: a missing file is exit 3, a device or a folder
 * exit 2, a FIFO waited for within --timeout, and at most `maxBytes` read.
 */
export async function readFlagFile(
  path: string,
  flag: string,
  ctx: PromptContext,
  maxBytes = MAX_FLAG_FILE_BYTES,
): Promise<string> {
  return readInputText(path, { label: flag, maxBytes, ...boundsOf(ctx) });
}

/**
 * Whether the stream's first byte (or its end) comes within `ms`; when it does not, the stream
 * is let go: nobody will read it, and an open handle must not keep us alive.
 */
async function startsWithin(stream: NodeJS.ReadableStream, ms: number): Promise<boolean> {
  const started = await new Promise<boolean>((resolve) => {
    const done = (ok: boolean): void => {
      clearTimeout(timer);
      stream.removeListener('readable', onReadable);
      stream.removeListener('end', onReadable);
      stream.removeListener('error', onReadable);
      resolve(ok);
    };
    const onReadable = (): void => done(true);
    const timer = setTimeout(() => done(false), ms);
    stream.once('readable', onReadable);
    stream.once('end', onReadable);
    stream.once('error', onReadable);
  });
  if (!started) {
    stream.pause();
    (stream as { destroy?: () => void }).destroy?.();
  }
  return started;
}
