import type { IncomingMessage, ServerResponse } from 'node:http';
import type { DedupCache } from './dedup.js';
import type { FaultBook, FaultSpec } from './faults.js';
import type { SimControl } from './hold.js';
import type { JobRegistry } from './jobs.js';
import type { SimPolicy } from './policies.js';
import type { SimProfile } from './profile.js';
import type { ResponseStore } from './responses/store.js';
import type { TimerSet } from './timers.js';

/** The simulator's state, shared by every route. */
export interface SimContext {
  seed: number;
  roundMs: number;
  /** How long an agent blocked on a client tool call waits before the call expires. */
  toolWaitMs: number;
  keepaliveMs: number;
  policies: SimPolicy[];
  jobs: JobRegistry;
  faults: FaultBook;
  timers: TimerSet;
  profile: SimProfile;
  /** Undefined when dedup is off. */
  dedup: DedupCache | undefined;
  /** Server-held Responses API threads. */
  responses: ResponseStore;
  historyTtlMs: number;
  /** Holds deliberations at phase boundaries for tests; inert unless a test turns holding on. */
  control: SimControl;
  /** Every agent of one model family (`--single-family`): a council without diversity. */
  singleFamily: boolean;
  /** Threads whose first structured answer the `schema=violate-once` fault has already broken. */
  violatedThreads: Set<string>;
}

/** One request as a route sees it: body already read, faults already decided. */
export interface RouteInput {
  req: IncomingMessage;
  res: ServerResponse;
  /** The raw body text; '' when there was none. */
  raw: string;
  faults: FaultSpec;
  /** The `{id}` path segment, decoded, for `/deliberation/{id}/…` routes. */
  id: string;
  /** The `{call_id}` segment of a tool-call answer; '' elsewhere. */
  sub: string;
}
