import type { IncomingHttpHeaders } from 'node:http';

/** One request as the simulator saw it, for tests to inspect; the bearer token is never kept. */
export interface SimRequestRecord {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: unknown;
  at: number;
}

export function recordHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const key = name.toLowerCase();
    if (key === 'authorization' || value === undefined) continue;
    out[key] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}
