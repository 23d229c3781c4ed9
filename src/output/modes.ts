/** The output modes of every command that runs a turn: the one list the flag, the renderer and the docs read. */
export const OUTPUT_MODES = ['text', 'ndjson', 'final', 'json'] as const;

export type OutputMode = (typeof OUTPUT_MODES)[number];

/**
 * `--progress` (NSED_PROGRESS, config key progress): `auto` shows progress as today (live on a
 * terminal), and plain lines off a terminal when the environment says it is CI.
 */
export const PROGRESS_CHOICES = ['auto', 'plain', 'none'] as const;

export type ProgressChoice = (typeof PROGRESS_CHOICES)[number];

/**
 * `--on-exit` (NSED_ON_EXIT, config key on_exit): what a signal or --timeout does to a running
 * deliberation. `detach` leaves it running for `nsed resume`; `cancel` stops it on the orchestrator.
 */
export const ON_EXIT_CHOICES = ['detach', 'cancel'] as const;

export type OnExit = (typeof ON_EXIT_CHOICES)[number];
