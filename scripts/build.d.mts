/** The tricks a bench build can leave out, by name: each a map of source file to text replacements. */
export const TRICKS: Record<string, Record<string, [string, string][]>>;
export function buildCli(outdir?: string, opts?: { without?: readonly string[] }): Promise<void>;
export function bundleModule(entry: string, outfile: string): Promise<string>;
