export function ensurePeers(opts: {
  source: string;
  name: string;
  packages: string[];
  main: string;
  log: (line: string) => void;
}): Promise<{ node: string; dir: string }>;
