// The entry of the full CLI (yargs, every command): bin/nsed.cjs imports it for whatever the
// fast entry (cli/fast.ts) does not answer. A lone `nsed --version` never gets here either.
import { tuneEngine } from './engine-profile.js';
import { finish, isTTY, processContext, processStreams } from './process-context.js';
import { baselineWasmOnly } from './wasm-tiering.js';

const argv = process.argv.slice(2);
// The engine is this process's own, so a command may tune it (ProcessContext.tuneEngine).
const base = { ...processContext(), tuneEngine };
baselineWasmOnly();
const { runCli } = await import('./run-cli.js');
finish(await runCli(argv, base, processStreams, {}, isTTY));
