// The fast entry: bin/nsed.cjs requires it (dist/fast.cjs, one CommonJS file, no ES-module
// loader) for the plain shapes of `sessions ls` and `sessions show ID|--last` that a shell loop,
// a completion function or a CI step runs. The words are read by the prescan (held to yargs by
// test/cli/prescan.test.ts) and the command runs through the same runSelected as in the full
// CLI, so both print the same bytes and exit with the same codes. Any other shape is declined,
// and the bin loads the full CLI (cli/main.ts). bench/RESULTS.md has what this saves.
import { ls } from '../commands/sessions/ls.js';
import { show } from '../commands/sessions/show.js';
import { prescan, prescannedCommand } from './prescan.js';
import { directStdout, finish, isTTY, processContext, processStreams } from './process-context.js';
import { runSelected } from './run-command.js';

/** Runs `args` when they are one of this entry's shapes and returns true, else returns false having done nothing. */
export function run(args: readonly string[]): boolean {
  // `ask` is the prescan's too, but it connects: the full CLI runs it.
  const command = prescannedCommand(args);
  const argv = command === 'ls' || command === 'show' ? prescan(args) : undefined;
  if (argv === undefined) return false;
  const def = command === 'show' ? show : ls;
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
  void runSelected({ def, argv }, base, streams, {}, isTTY).then(finish);
  return true;
}
