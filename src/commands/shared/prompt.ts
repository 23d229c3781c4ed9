import { usageError } from '../../errors.js';
import type { IO } from '../../terminal/io.js';

/**
 * yargs drops a lone `-` from positionals, so run-cli swaps it for this marker before
 * parsing and `promptWords` swaps it back.
 */
export const STDIN_MARKER = '\u0000nsed-stdin';

/**
 * How long a question given as words waits for the first byte of a piped standard input before
 * going on without it. Long enough for `git diff |` to start writing; short enough that a CI
 * job whose stdin is an open pipe nobody writes to is not held up (README "Standard input").
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

export interface PromptRules {
  /** Noun for messages: `prompt`, `message`. */
  what?: string;
  /** Piped input joins words given as context (ask, continue, fork); inject reads stdin only for `-`. */
  context?: boolean;
}

/**
 * The prompt rules (README "Standard input"): the words joined by spaces; `-` stands for
 * standard input; with no words and a stdin that is not a terminal, stdin is the prompt. With
 * words and a piped stdin, the input is context: read if its first byte arrives within
 * STDIN_FIRST_BYTE_MS, else ignored, so an open and silent stdin never hangs a CI job
 * (docs/reliability.md #70).
 */
export async function readPrompt(words: readonly string[], io: IO, rules: PromptRules = {}): Promise<string> {
  const what = rules.what ?? 'prompt';
  let text: string;
  if (words.length === 0) {
    if (io.stdinIsTTY)
      throw usageError(
        `no ${what} given`,
        `pass it as words, or pipe it on standard input (use - to read stdin explicitly)`,
      );
    text = await readAll(io.stdin);
  } else if (words.includes('-')) {
    const stdin = await readAll(io.stdin);
    text = words.map((w) => (w === '-' ? stdin : w)).join(' ');
  } else {
    text = words.join(' ');
    if (rules.context === true && !io.stdinIsTTY) {
      const context = await readIfPrompt(io.stdin, STDIN_FIRST_BYTE_MS);
      if (context !== undefined && context.trim() !== '') text = withContext(text, context);
      if (io.verbose && !io.quiet) {
        const said =
          context === undefined
            ? `no input within ${STDIN_FIRST_BYTE_MS} ms; ignored`
            : context.trim() === ''
              ? 'empty; nothing added'
              : `${context.length} characters added as context`;
        io.stderr.write(`stdin: ${said}\n`);
      }
    }
  }
  if (text.trim() === '')
    throw usageError(`the ${what} is empty`, 'give some words, or pipe non-empty text on standard input');
  return text.replace(/\r?\n$/, '');
}

/**
 * The documented layout of a question with piped context: the question, a blank line, then the
 * input in a fenced block whose fence is longer than any run of backticks inside it, so a
 * Markdown file or a diff of one cannot close it early.
 */
export function withContext(question: string, context: string): string {
  const longest = Math.max(0, ...[...context.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  const body = context.endsWith('\n') ? context : `${context}\n`;
  return `${question}\n\n${fence}\n${body}${fence}\n`;
}

export async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const decoder = new TextDecoder('utf-8');
  let out = '';
  for await (const chunk of stream) {
    out += typeof chunk === 'string' ? chunk : decoder.decode(chunk as Uint8Array, { stream: true });
  }
  return out + decoder.decode();
}

/**
 * The whole stream if its first byte (or its end) comes within `ms`; undefined otherwise, and
 * then the stream is let go: nobody will read it, and an open handle must not keep us alive.
 */
async function readIfPrompt(stream: NodeJS.ReadableStream, ms: number): Promise<string | undefined> {
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
    return undefined;
  }
  return readAll(stream);
}
