export function buildCli(outdir?: string): Promise<void>;
export function bundleModule(entry: string, outfile: string): Promise<string>;
