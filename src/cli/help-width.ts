/** The widest help yargs renders: also what a pipe or a file gets, having no columns. */
export const HELP_WIDTH = 100;

/** The width runCli gives yargs' help for a stdout of `columns` (undefined: no terminal). */
export function helpWidth(columns: number | undefined): number {
  return Math.min(HELP_WIDTH, columns !== undefined && columns > 0 ? columns : HELP_WIDTH);
}
