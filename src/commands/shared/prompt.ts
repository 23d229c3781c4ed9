import { usageError } from '../../errors.js';
import type { IO } from '../../terminal/io.js';

/**
 * yargs drops a lone `-` from positionals, so run-cli swaps it for this marker before
 * parsing and `promptWords` swaps it back.
 */
export const STDIN_MARKER = '\u0000nsed-stdin';

/**
 * The words of a prompt: the positional words, then every word after `--` (yargs keeps those
 * apart), so `nsed ask -- -x is a flag?` asks about `-x`.
 */
export function promptWords(v: unknown, afterDashes?: unknown): string[] {
  const list = (x: unknown): string[] => (Array.isArray(x) ? x.map(String) : typeof x === 'string' ? [x] : []);
  return [...list(v), ...list(afterDashes)].map((w) => (w === STDIN_MARKER ? '-' : w));
}

/**
 * The prompt rules (README): the words joined by spaces; `-` stands for standard input;
 * with no words and a stdin that is not a terminal, stdin is the prompt. Stdin is never read
 * otherwise, so a CI job with an open stdin does not hang (docs/reliability.md #70).
 */
export async function readPrompt(words: readonly string[], io: IO, what = 'prompt'): Promise<string> {
  let text: string;
  if (words.length === 0) {
    if (io.stdinIsTTY) throw usageError(`no ${what} given`, `pass it as words, or pipe it on standard input (use - to read stdin explicitly)`);
    text = await readAll(io.stdin);
  } else if (words.includes('-')) {
    const stdin = await readAll(io.stdin);
    text = words.map((w) => (w === '-' ? stdin : w)).join(' ');
  } else {
    text = words.join(' ');
  }
  if (text.trim() === '') throw usageError(`the ${what} is empty`, 'give some words, or pipe non-empty text on standard input');
  return text.replace(/\r?\n$/, '');
}

export async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const decoder = new TextDecoder('utf-8');
  let out = '';
  for await (const chunk of stream) {
    out += typeof chunk === 'string' ? chunk : decoder.decode(chunk as Uint8Array, { stream: true });
  }
  return out + decoder.decode();
}
