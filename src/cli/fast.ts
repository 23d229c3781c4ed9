// The fast entry: bin/nsed.cjs requires it (dist/fast.cjs, one CommonJS file, no ES-module
// loader) for the plain shapes of `sessions ls`, `sessions show ID|--last`, `sessions search`
// and `sessions stats` that a shell loop,
// a completion function or a CI step runs. The words are read by the prescan, from the same
// flag tables yargs is built from (held to yargs by test/cli/prescan.test.ts), and the command
// runs through the same runSelected as in the full CLI, so both print the same bytes and exit
// with the same codes. Any other shape is declined, and the bin loads the full CLI
// (cli/main.ts). docs/performance.md has what this saves.
import { ls } from '../commands/sessions/ls.js';
import { search } from '../commands/sessions/search.js';
import { stats } from '../commands/sessions/stats.js';
import { show } from '../commands/sessions/show.js';
import { fastEntries, prescan } from './prescan.js';
import { directStdout, finish, isTTY, processContext, processStreams } from './process-context.js';
import { runSelected } from './run-command.js';

// `sessions` is the group's name (commands/sessions/index.ts), not imported: its other
// subcommands would come along into this bundle.
const ENTRIES = [
  ...fastEntries(['sessions'], ls),
  ...fastEntries(['sessions'], show),
  ...fastEntries(['sessions'], search),
  ...fastEntries(['sessions'], stats),
];

/** Runs `args` when they are one of this entry's shapes and returns true, else returns false having done nothing. */
export function run(args: readonly string[]): boolean {
  // `ask` is the prescan's too, but it connects: the full CLI (or dist/ask.cjs) runs it.
  const selected = prescan(args, ENTRIES);
  if (selected === undefined) return false;
  const base = processContext();
  const streams = {
    stdout: directStdout(),
    get stderr() {
      return processStreams.stderr;
    },
    get stdin() {
      return processStreams.stdin;
    },
  };
  void runSelected(selected, base, streams, {}, isTTY).then(finish);
  return true;
}
