import { type SimOptions, startSim } from './server.js';

/**
 * `nsed sim`: serve until `signal` aborts. The first stdout line is exactly
 * `nsed sim listening on http://HOST:PORT` (scripts wait for it); one line per request on stderr.
 */
export async function serveSim(
  opts: SimOptions,
  out: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream },
  signal: AbortSignal,
): Promise<void> {
  const sim = await startSim({
    ...opts,
    log: (line) => {
      out.stderr.write(`${line}\n`);
      opts.log?.(line);
    },
  });
  out.stdout.write(`nsed sim listening on ${sim.url}\n`);
  await new Promise<void>((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
  await sim.close();
}
