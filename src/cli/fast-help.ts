// The help entry: bin/nsed.cjs requires it (dist/help.cjs) for `nsed [WORDS…] --help|-h` and it
// prints the text yargs rendered for those words when the bundle was built (cli/help-texts.ts),
// without loading yargs or the command definitions: yargs' parse and rendering were most of a
// `--help` run. It declines any other shape, and a terminal narrower than the
// stored width, and the bin then loads the full CLI.
import { safeWriter } from '../terminal/safe-writer.js';
import { HELP_WIDTH, helpWidth } from './help-width.js';
import { directStdout, finish, isTTY, processStreams } from './process-context.js';

// Set by scripts/build.mjs: JSON of the texts by the words before `--help`. Absent when this
// module runs unbundled (the tests), where the store is empty.
declare const NSED_STORED_HELP: string | undefined;

let texts: Record<string, string> | undefined;

/** The help texts this bundle carries, by the words before `--help` (tests compare them to yargs). */
export function storedHelp(): Record<string, string> {
  texts ??= typeof NSED_STORED_HELP === 'string' ? (JSON.parse(NSED_STORED_HELP) as Record<string, string>) : {};
  return texts;
}

/** Prints the stored help for `args` and returns true, or returns false having done nothing. */
export function run(args: readonly string[]): boolean {
  const last = args[args.length - 1];
  if (last !== '--help' && last !== '-h') return false;
  const text = storedHelp()[args.slice(0, -1).join(' ')];
  // runCli gives yargs no columns for a pipe or a file, and a terminal's own (at most HELP_WIDTH).
  if (text === undefined || (isTTY('stdout') && helpWidth(processStreams.stdout.columns) !== HELP_WIDTH)) return false;
  const out = safeWriter(directStdout());
  out.write(text);
  void out.drain().then(() => finish(0));
  return true;
}
