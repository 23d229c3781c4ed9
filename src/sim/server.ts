import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { NsedError } from '../errors.js';
import type { SimContext } from './context.js';
import { DedupCache } from './dedup.js';
import { FaultBook } from './faults.js';
import { handleRequest } from './handler.js';
import { SimControl } from './hold.js';
import { JobRegistry } from './jobs.js';
import { defaultPolicies } from './policies.js';
import { type ProfileName, parseProfile } from './profile.js';
import { ResponseStore } from './responses/store.js';
import type { SimRequestRecord } from './request-log.js';
import type { RouteName } from './router.js';
import { TimerSet } from './timers.js';

export type { SimRequestRecord } from './request-log.js';
export { parseFaultSpec, type FaultSpec } from './faults.js';

export interface SimOptions {
  host?: string;
  port?: number;
  seed?: number;
  roundMs?: number;
  /** Default: 40 phases, at least 30 s (toolWaitFor). */
  toolWaitMs?: number;
  keepaliveMs?: number;
  historyTtlMs?: number;
  token?: string;
  faults?: string[];
  /** Which answer to the seeds' open questions the simulator gives (README: the simulator). */
  profile?: ProfileName;
  /** Overrides the profile's dedup switch. */
  dedup?: boolean;
  dedupTtlMs?: number;
  /** Routes this orchestrator answers 404 on, to stand in for an older server (e.g. `inject`). */
  withoutRoutes?: RouteName[];
  log?: (line: string) => void;
  /** Start every deliberation held at its first phase boundary until the test releases it. */
  hold?: boolean;
  /** Serve the test control under `/_sim/` (implied by `hold`). */
  control?: boolean;
  /** Every agent of one model family, for clients that warn about a council without diversity. */
  singleFamily?: boolean;
  /** Milliseconds since the epoch, for the history TTL; a test passes its own to expire jobs. */
  now?: () => number;
}

export interface SimServer {
  url: string;
  port: number;
  requests: SimRequestRecord[];
  setFaults(specs: string[]): void;
  /** Holds and releases deliberations phase by phase (see src/sim/hold.ts). */
  control: SimControl;
  close(): Promise<void>;
}

export const SIM_DEFAULTS = {
  host: '127.0.0.1',
  port: 0,
  seed: 0,
  roundMs: 600,
  keepaliveMs: 15_000,
  historyTtlMs: 10 * 60_000,
  dedupTtlMs: 30_000,
} as const;

/**
 * An agent waits for a tool result at most what is left of its phase budget; the simulator's
 * phase is one --round-ms, and a real phase budget is tens of them, hence 40. The floor of 30 s
 * is the real finalization reserve's cap: a program or a person must have time to answer.
 */
export function toolWaitFor(roundMs: number): number {
  return Math.max(30_000, roundMs * 40);
}

/** Starts the simulated orchestrator on a real socket; faults that cannot be parsed throw first. */
export async function startSim(opts: SimOptions = {}): Promise<SimServer> {
  const timers = new TimerSet();
  const faults = new FaultBook();
  faults.set(opts.faults ?? []);
  const profile = parseProfile(opts.profile);
  const dedupOn = opts.dedup ?? profile.dedup;
  const control = new SimControl(opts.hold === true, (fn) => timers.after(0, fn));
  const roundMs = opts.roundMs ?? SIM_DEFAULTS.roundMs;
  const ctx: SimContext = {
    seed: opts.seed ?? SIM_DEFAULTS.seed,
    roundMs,
    toolWaitMs: opts.toolWaitMs ?? toolWaitFor(roundMs),
    keepaliveMs: opts.keepaliveMs ?? SIM_DEFAULTS.keepaliveMs,
    policies: defaultPolicies(),
    jobs: new JobRegistry(opts.now ?? Date.now, opts.historyTtlMs ?? SIM_DEFAULTS.historyTtlMs),
    faults,
    timers,
    profile,
    dedup: dedupOn ? new DedupCache(opts.dedupTtlMs ?? SIM_DEFAULTS.dedupTtlMs) : undefined,
    responses: new ResponseStore(),
    historyTtlMs: opts.historyTtlMs ?? SIM_DEFAULTS.historyTtlMs,
    control,
    violatedThreads: new Set(),
    singleFamily: opts.singleFamily === true,
  };
  const requests: SimRequestRecord[] = [];
  const deps = {
    ctx,
    token: opts.token,
    requests,
    log: opts.log,
    withoutRoutes: new Set(opts.withoutRoutes ?? []),
    controlRoutes: opts.control === true || opts.hold === true,
  };
  const server = createServer((req, res) => {
    handleRequest(deps, req, res).catch(() => {
      if (!res.headersSent) {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end('{"error":"internal simulator error"}');
      } else {
        res.destroy();
      }
    });
  });
  const host = opts.host ?? SIM_DEFAULTS.host;
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err) => reject(listenError(err, host, opts.port ?? SIM_DEFAULTS.port)));
    server.listen(opts.port ?? SIM_DEFAULTS.port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${shownHost}:${port}`,
    port,
    requests,
    setFaults: (specs) => faults.set(specs),
    control,
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        timers.close();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

const LISTEN_FAILURES: Record<string, string> = {
  EADDRINUSE: 'the address is already in use',
  EACCES: 'permission denied (ports below 1024 need privileges)',
  EADDRNOTAVAIL: 'no such address on this machine',
  ENOTFOUND: 'the host name does not resolve',
  EAI_AGAIN: 'the host name does not resolve',
};

/** A socket that cannot listen is the caller's choice of --host/--port: a usage error, not a crash. */
function listenError(err: Error, host: string, port: number): Error {
  const code = (err as NodeJS.ErrnoException).code ?? '';
  const why = LISTEN_FAILURES[code];
  if (why === undefined) return err;
  return new NsedError('usage', `cannot listen on ${host}:${port}: ${why}`, {
    cause: err,
    hint: code === 'EADDRINUSE' ? 'choose another --port, or --port 0 for a free one' : 'check --host and --port',
  });
}
