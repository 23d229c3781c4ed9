import { createInterface } from 'node:readline';
import type { IO } from '../terminal/io.js';
import { oneLine } from '../terminal/sanitize.js';

export interface AskUserArgs {
  question: string;
  options: string[];
}

/** `ask_user` arguments from the call's JSON; undefined when there is no question to ask. */
export function askUserArgs(json: string): AskUserArgs | undefined {
  let v: unknown;
  try {
    v = JSON.parse(json);
  } catch {
    return undefined;
  }
  if (typeof v !== 'object' || v === null) return undefined;
  const { question, options } = v as { question?: unknown; options?: unknown };
  if (typeof question !== 'string' || question.trim() === '') return undefined;
  return { question, options: Array.isArray(options) ? options.filter((o): o is string => typeof o === 'string') : [] };
}

/** Whether a person is there to answer: a terminal on both ends of the conversation. */
export function canAskPerson(io: IO): boolean {
  return io.stdinIsTTY && io.stderrIsTTY;
}

/**
 * Puts the council's question to the person on the terminal (stderr, so stdout keeps only the
 * answer) and reads one line. A number picks one of the offered options; anything else is the
 * answer as typed. Ctrl-C ends the wait like any other (the signal aborts it).
 */
export async function askPerson(io: IO, args: AskUserArgs, signal: AbortSignal): Promise<string> {
  const lines = [`the council asks: ${oneLine(args.question, 500)}`];
  args.options.forEach((o, i) => lines.push(`  ${i + 1}) ${oneLine(o, 200)}`));
  io.stderr.write(`${lines.join('\n')}\n`);
  const rl = createInterface({ input: io.stdin, output: io.stderr, terminal: false });
  try {
    const answer = await new Promise<string>((resolve, reject) => {
      const onAbort = (): void => reject(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
      io.stderr.write(args.options.length > 0 ? `answer (1-${args.options.length} or text)> ` : 'answer> ');
      rl.once('line', (line) => {
        signal.removeEventListener('abort', onAbort);
        resolve(line);
      });
      rl.once('close', () => {
        signal.removeEventListener('abort', onAbort);
        resolve('');
      });
    });
    const n = Number(answer.trim());
    return Number.isInteger(n) && n >= 1 && n <= args.options.length ? (args.options[n - 1] ?? answer) : answer.trim();
  } finally {
    rl.close();
  }
}
