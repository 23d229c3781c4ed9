import type { NsedClient } from '../api/index.js';
import type { Context } from '../run/context.js';
import type { Renderer } from '../output/renderer-types.js';
import type { LiveSim, TurnPath } from '../session/index.js';
import type { DeclaredTools } from '../tools/declared.js';
import type { AnswerSchema } from './schema/answer-schema.js';
import type { MeteredCap } from '../council/spend-cap.js';
import type { TurnStart } from './build-request.js';
import type { TurnRecorder } from './record-turn.js';
import type { TranscriptToolCall, TranscriptToolResult } from '../events/transcript.js';
import type { Gates } from '../council/verdict.js';
import type { AgentInfo } from '../protocol/wire.js';

/** What one turn runs with (runTurn, followStream). */
export interface TurnDeps {
  ctx: Context;
  client: NsedClient;
  renderer: Renderer;
  recorder: TurnRecorder;
  url: string;
  /** The in-process simulator (--sim) the job runs on, if any: its owner may be another process. */
  liveSim?: LiveSim | undefined;
  newTurnId: () => string;
  /** The tools the user declared for this run; without, every call is refused (never run). */
  tools?: DeclaredTools;
  /**
   * --schema: the answer is checked before the turn ends. `attempt` counts the corrective turns
   * before this one; while it is below the schema's retries, an answer that does not match ends
   * the turn with `schema-retry` instead of `finish`, and the renderer stays open for the next.
   */
  answer?: { schema: AnswerSchema; attempt: number };
  /** The `/agents` listing `--agents` was checked against, which the verdict at the end reuses (ballot-sources.ts). */
  checkedAgents?: readonly AgentInfo[] | null;
}

/** What following a job needs: no recorder, so a read-only follower (`nsed watch`) uses it too. */
export type FollowDeps = Pick<TurnDeps, 'ctx' | 'client' | 'renderer'>;

export interface TurnSpec {
  sessionId: string;
  /** The user turn this answers; the pending marker points at it. */
  userTurnId: string;
  assistantTurnId: string;
  /** The model string sent (`nsed:deep`); on the native path, the policy looked up for the council. */
  policy: string;
  /**
   * The agents chosen with --agents: they, not `policy`, chose the council, so the turn is not
   * labelled with the policy (README, "Policies, agents and models").
   */
  agents?: string[];
  path: TurnPath;
  start: TurnStart;
  /** false: a blocking chat.completion request (--no-stream). */
  stream: boolean;
  /**
   * Continuing a turn that stopped at a tool call: its calls, the results given now, and the
   * request the tool round is appended to (the turn's lineage).
   */
  toolRound?: { calls: TranscriptToolCall[]; results: TranscriptToolResult[]; base: TurnStart };
  /** The gates the completed turn's verdict is judged against (--min-convergence, --gates FILE...). */
  gates?: Gates;
  /** --max-cost, --max-tokens: the deliberation is cancelled once its live usage crosses them (spend-watch.ts). */
  cap?: MeteredCap;
}
