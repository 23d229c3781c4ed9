export function buildCli(outdir?: string): Promise<void>;
