/**
 * The one bound on any wait a test makes for something the simulator or the CLI controls. It is
 * a backstop against a hang, not a measure of speed: a loaded machine may take long, and the
 * simulator's hold (src/sim/hold.ts) decides what "still running" means.
 */
export const WAIT_MS = 90_000;
