import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SimContext } from './context.js';
import { DedupCache } from './dedup.js';
import { FaultBook } from './faults.js';
import { handleRequest } from './handler.js';
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
}

export interface SimServer {
  url: string;
  port: number;
  requests: SimRequestRecord[];
  setFaults(specs: string[]): void;
  /** Ids of the jobs still running, oldest first. */
  running(): string[];
  /**
   * Runs the next phase of a running job now (of every running job when `id` is omitted);
   * returns how many phases ran. With a very long `roundMs` this is how a test holds a job open
   * and releases it step by step, without racing the clock.
   */
  advance(id?: string): number;
  /** Advances until the job (or every running job) has ended. */
  finish(id?: string): void;
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

/** Starts the simulated orchestrator on a real socket; faults that cannot be parsed throw first. */
export async function startSim(opts: SimOptions = {}): Promise<SimServer> {
  const timers = new TimerSet();
  const faults = new FaultBook();
  faults.set(opts.faults ?? []);
  const profile = parseProfile(opts.profile);
  const dedupOn = opts.dedup ?? profile.dedup;
  const ctx: SimContext = {
    seed: opts.seed ?? SIM_DEFAULTS.seed,
    roundMs: opts.roundMs ?? SIM_DEFAULTS.roundMs,
    keepaliveMs: opts.keepaliveMs ?? SIM_DEFAULTS.keepaliveMs,
    policies: defaultPolicies(),
    jobs: new JobRegistry(timers, opts.historyTtlMs ?? SIM_DEFAULTS.historyTtlMs),
    faults,
    timers,
    profile,
    dedup: dedupOn ? new DedupCache(opts.dedupTtlMs ?? SIM_DEFAULTS.dedupTtlMs) : undefined,
    responses: new ResponseStore(),
    historyTtlMs: opts.historyTtlMs ?? SIM_DEFAULTS.historyTtlMs,
  };
  const live = (id?: string) => ctx.jobs.list().filter((j) => j.status === 'running' && (id === undefined || j.id === id));
  const requests: SimRequestRecord[] = [];
  const deps = { ctx, token: opts.token, requests, log: opts.log, withoutRoutes: new Set(opts.withoutRoutes ?? []) };
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
    server.once('error', reject);
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
    running: () => live().map((j) => j.id),
    advance: (id) => {
      let ran = 0;
      for (const job of live(id)) {
        if (job.advance === undefined) continue;
        job.advance();
        ran += 1;
      }
      return ran;
    },
    finish: (id) => {
      while (live(id).some((j) => j.advance !== undefined)) {
        for (const job of live(id)) job.advance?.();
      }
    },
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
