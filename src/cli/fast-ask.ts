// The one-shot entry: bin/nsed.cjs requires it (dist/ask.cjs, one CommonJS file) for `nsed ask …`.
// The words are read by the prescan from the flag tables (held to yargs by test/cli/prescan.test.ts), and the command
// runs through the same runSelected as in the full CLI, with the same process streams, so both
// print the same bytes and exit with the same codes. Any other shape is declined, and the bin
// loads the full CLI (cli/main.ts). Resolving, linking and compiling the ~45 ES-module chunks an
// ask loads from dist/main.js cost it more than the prescan saved.
import { ask } from '../commands/ask.js';
import { STDIN_MARKER } from '../input/prompt.js';
import { tuneEngine } from './engine-profile.js';
import { fastEntries, prescan } from './prescan.js';
import { finish, isTTY, processContext, processStreams } from './process-context.js';
import { runSelected } from './run-command.js';
import { baselineWasmOnly } from './wasm-tiering.js';

const ENTRIES = fastEntries([], ask);

/** Runs `args` when they are a shape of `ask` the prescan reads and returns true, else returns false having done nothing. */
export function run(args: readonly string[]): boolean {
  if (args[0] !== 'ask') return false;
  // As runCli does: yargs would drop a lone `-`, so both parsers see the marker instead.
  const selected = prescan(
    args.map((a) => (a === '-' ? STDIN_MARKER : a)),
    ENTRIES,
  );
  if (selected === undefined) return false;
  baselineWasmOnly();
  // The engine is this process's own, so a long answer may tune it (ProcessContext.tuneEngine).
  void runSelected(selected, { ...processContext(), tuneEngine }, processStreams, {}, isTTY).then(finish);
  return true;
}
