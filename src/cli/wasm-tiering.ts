import { setFlagsFromString } from 'node:v8';

/**
 * undici parses HTTP with llhttp compiled to WebAssembly. V8 compiles it with its baseline
 * compiler and then again, in background threads, with its optimising one, and a finished
 * process waits for those jobs before it exits: ~90 ms of every one-shot `ask`, for a parser
 * that is not faster for it over one answer, nor measurably over 200,000 chunks (bench/RESULTS.md,
 * round 3). The flag is process-wide, so only an entry sets it, before the first connection
 * compiles the module; an import below cli/ would set it in every test worker that loads api/.
 */
export function baselineWasmOnly(): void {
  setFlagsFromString('--liftoff-only');
}
