export function buildCli(): Promise<void>;
