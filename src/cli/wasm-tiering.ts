import { setFlagsFromString } from 'node:v8';

/**
 * undici parses HTTP with llhttp compiled to WebAssembly. V8 compiles it with its baseline
 * compiler and then again, in background threads, with its optimising one, and a finished
 * process waits for those jobs before it exits: a third of a one-shot `ask`, for a parser that
 * is not faster for it over one answer, and costs a long answer more CPU than it saves
 * (docs/performance.md has both figures). Without lazy compilation the baseline compile is one
 * step, when undici's first connection builds the module, instead of one per parser function
 * while the first response is read; the two flags are timed together. The flags are
 * process-wide, so only an entry sets them, before anything compiles the module; an import below
 * cli/ would set them in every test worker that loads api/.
 */
export function baselineWasmOnly(): void {
  setFlagsFromString('--liftoff-only');
  setFlagsFromString('--no-wasm-lazy-compilation');
}
