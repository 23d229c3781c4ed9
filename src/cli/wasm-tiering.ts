import { setFlagsFromString } from 'node:v8';

/**
 * undici parses HTTP with llhttp compiled to WebAssembly. V8 compiles it with its baseline
 * compiler and then again, in background threads, with its optimising one, and a finished
 * process waits for those jobs before it exits: ~90 ms of every one-shot `ask`, for a parser
 * that is not faster for it over one answer, nor measurably over 200,000 chunks. V8 would also compile each parser function on its first call, on the main thread
 * while the first response is read (~3 ms); compiled whole instead, the bundles' parser is ready
 * before the first connection opens, as it is compiled in the background
 * (scripts/undici-llhttp.cjs). The flags are process-wide, so only an entry sets them, before
 * anything compiles the module; an import below cli/ would set them in every test worker that
 * loads api/.
 */
export function baselineWasmOnly(): void {
  setFlagsFromString('--liftoff-only');
  setFlagsFromString('--no-wasm-lazy-compilation');
}
