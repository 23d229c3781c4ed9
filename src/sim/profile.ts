import { createHash } from 'node:crypto';
import { NsedError } from '../errors.js';
import type { JobEnding } from './job.js';
import type { MeterMode } from './metering.js';
import { quoted } from './quote.js';
import type { UsageCount } from './usage.js';

export type MilestoneWording = 'seed' | 'reworded';

export const PROFILE_NAMES = ['default', 'strict'] as const;
export type ProfileName = (typeof PROFILE_NAMES)[number];

/**
 * One answer to each question the seeds leave open. The default profile keeps the answers the
 * simulator has always given; the strict profile gives the other plausible answer to every one
 * of them at once, so a client that passes against both depends on none.
 */
export interface SimProfile {
  name: ProfileName;
  /**
   * The end of a failed or cancelled job's streams (see JobEnding); `per-job` picks bare-done or
   * close per job. A completed job always ends with its finish chunk and `[DONE]`.
   */
  ending: 'chunk' | 'per-job';
  /** Passthrough and moderator answers keep a room: a session id, `/result`, `/details`, `/resume`. */
  instantRoom: boolean;
  /** `/resume` also replays jobs submitted on the native `/deliberation` route. */
  resumeNative: boolean;
  /** Identical requests are answered from the same job (a flag can override it). */
  dedup: boolean;
  /**
   * How chat streams word the reasoning milestones the seed says rounds are emitted as. `seed`:
   * the seed's example (`Round N complete — convergence: P%`, ...). The seeds document one
   * example and no contract, so strict words them its own way (`Scored round N of M; agreement
   * 0.45`): a client that reads convergence from the seed's wording then has nothing to read.
   */
  milestones: MilestoneWording;
  /**
   * The final answer honours `response_format` (chat), `text.format` (Responses) and a schema
   * worded into native `system_instructions`; nothing says an orchestrator does.
   */
  answerFormat: boolean;
  /**
   * What the council reports about its cost: `full` (tokens and dollars, prices in `/agents`);
   * the seeds promise no cost, so strict reports tokens only and lists no prices.
   */
  meter: MeterMode;
  prices: boolean;
  /**
   * What the `usage` of a chat completion or a Responses answer counts: the seeds say nothing.
   * `deliberation`: every model call of the council (the totals `/budget` reports), so OpenAI
   * clients see what a council costs; strict counts the question and the answer only.
   */
  usage: UsageCount;
  /**
   * `GET /policies` names each policy's council (`agents`); nothing says a listing does
   * (docs/protocol.md §3.15 shows `max_rounds` and `effort` only), so strict names none.
   */
  policyCouncil: boolean;
}

const PROFILES: Record<ProfileName, SimProfile> = {
  default: {
    name: 'default',
    ending: 'chunk',
    instantRoom: true,
    resumeNative: true,
    dedup: false,
    milestones: 'seed',
    answerFormat: true,
    meter: 'full',
    prices: true,
    usage: 'deliberation',
    policyCouncil: true,
  },
  strict: {
    name: 'strict',
    ending: 'per-job',
    instantRoom: false,
    resumeNative: false,
    dedup: true,
    milestones: 'reworded',
    answerFormat: false,
    meter: 'tokens',
    prices: false,
    usage: 'exchange',
    policyCouncil: false,
  },
};

/** Reads a profile name (flag or NSED_SIM_PROFILE); a usage error names the choices. */
export function parseProfile(text: string | undefined): SimProfile {
  const name = (text ?? '').trim() === '' ? 'default' : (text ?? '').trim();
  if (!(PROFILE_NAMES as readonly string[]).includes(name)) {
    throw new NsedError('usage', `unknown simulator profile ${quoted(name)}`, {
      hint: `choose one of: ${PROFILE_NAMES.join(', ')}`,
    });
  }
  return PROFILES[name as ProfileName];
}

/**
 * The ending a job gets: a fault's choice wins; a per-job profile derives it from the seed and
 * the job id, so the same run ends the same way every time while both endings occur.
 */
export function endingFor(profile: SimProfile, seed: number, jobId: string, forced?: JobEnding): JobEnding {
  if (forced !== undefined) return forced;
  if (profile.ending === 'chunk') return 'chunk';
  const byte = createHash('sha256').update(`${seed}\u0000${jobId}`).digest()[0] ?? 0;
  return byte % 2 === 0 ? 'bare-done' : 'close';
}
