/** The output modes of every command that runs a turn: the one list the flag, the renderer and the docs read. */
export const OUTPUT_MODES = ['text', 'ndjson', 'final', 'json'] as const;

export type OutputMode = (typeof OUTPUT_MODES)[number];
