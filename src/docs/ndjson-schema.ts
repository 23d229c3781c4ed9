import type { EventOf, EventType } from '../events/events.js';

type FieldDocs<T extends EventType> = { [K in Exclude<keyof EventOf<T>, 'type'>]-?: string };

/**
 * The NDJSON contract, documented event by event. The type checker holds this table to the
 * event union in events.ts: an event type or a field added there and not described here
 * (or described here and gone there) fails the build, so the man page cannot fall behind.
 */
export const NDJSON_EVENTS: { [T in EventType]: { when: string; fields: FieldDocs<T> } } = {
  'turn-start': {
    when: 'first event of every run',
    fields: {
      session: 'session id',
      turn: 'id of the assistant turn being produced',
      policy: 'model string sent, e.g. nsed:deep; null when --agents chose the council',
      agents: 'the agents --agents chose, or null when a policy chose the council',
      path: '"compat" (/v1/chat/completions) or "native" (/deliberation)',
      url: 'orchestrator base URL',
    },
  },
  job: { when: 'the orchestrator named the deliberation', fields: { job_id: 'deliberation (job) id' } },
  reasoning: { when: 'a progress milestone of the council, as text', fields: { text: 'the milestone text' } },
  round: {
    when: 'a proposal arrived (scored false) or a round was evaluated (scored true)',
    fields: {
      round: 'round number, from 1',
      total_rounds: 'rounds planned',
      progress: 'fraction done, 0 to 1',
      scored: 'true once the round is evaluated',
      candidates:
        'array of {agent_id, score, content_preview, thought_preview, claims: [{claim, verdict, reason?}], real_evals?, synthetic_evals?, controversy?}',
      convergence: "the round's convergence (native round_summary.convergence_score); absent where not reported",
      decisiveness: "the round's decisiveness (native round_summary.decisiveness); absent where not reported",
      leader:
        'watch --agent only, on a scored round: {agent_id, score} of the leader among all its candidates (null when none)',
    },
  },
  text: { when: 'a piece of the answer', fields: { text: 'the piece; concatenated in order they are the answer' } },
  injection: {
    when: 'guidance sent with nsed inject reached the council',
    fields: { message: 'the guidance', round: 'round it landed in', sequence: 'its number within the job' },
  },
  finalized: {
    when: "a user picked a candidate and ended the deliberation with it (never sent for the council's own choice)",
    fields: { chosen_agent_id: 'agent whose proposal the user picked', round: 'round of the pick' },
  },
  chosen: {
    when: "native path: the orchestrator named the answer's proposal (job_complete)",
    fields: {
      agent_id: 'best_proposal_author',
      score: 'best_proposal_score, or null',
      rounds_completed: 'rounds the council ran, or null',
      total_rounds: 'rounds planned, or null',
    },
  },
  usage: {
    when: "what the turn has cost so far: when the server's figures change, and once more before the verdict",
    fields: {
      usage:
        '{input_tokens, output_tokens, cost_usd, cost_source: reported|estimated|unknown}; a figure the server did not report is null, never 0',
    },
  },
  verdict: {
    when: 'right before finish: what the council concluded, as data (v 1; each value null when not reported)',
    fields: {
      verdict:
        '{v, rounds, convergence, chosen, runner_up, margin, scores, claims, dissent, ballots, trust, trajectory}',
    },
  },
  'tool-call': {
    when: 'the council called a tool; nsed runs it only if it was declared with a command',
    fields: { id: 'tool call id', name: "the tool's name as it was declared", arguments: 'arguments, a JSON string' },
  },
  'tool-result': {
    when: 'a tool call was settled: run, refused, answered by a person or another process, or expired',
    fields: {
      id: 'tool call id',
      name: 'tool name',
      content: 'the result the council sees (an error text when the tool failed)',
      exit_code: "the tool's exit code when nsed ran it, else null",
      status: 'ok, error, timeout, capped, refused, answered or expired',
      duration_ms: 'how long the tool ran, or null',
    },
  },
  reconnect: {
    when: 'the stream dropped and nsed resumes the job',
    fields: { attempt: 'attempt number, from 1', reason: 'why the stream dropped' },
  },
  finish: {
    when: 'terminal: the turn ended and is recorded',
    fields: {
      finish_reason: 'stop, tool_calls, length, ...',
      content: 'the whole answer',
      session: 'session id',
      turn: 'assistant turn id',
      job_id: 'deliberation id, or null',
      diverged:
        "present (true) when a resume's replay differed from what was shown, or /result completed a stream closed early with another text: the text events are not the answer, and content is the orchestrator's recorded answer (GET /result) when it gave one",
      verdict: 'the verdict (as the verdict event)',
      gate: '{status: pass|fail|inconclusive, checks: [{name, expected, actual, status}]}, or null without gates',
      usage:
        'what the turn cost: {input_tokens, output_tokens, cost_usd, cost_source}, each figure null when not reported',
      structured: 'with --schema: the answer parsed as JSON, or null when it does not match the schema',
      schema_errors: 'with --schema, when the answer does not match it: [{path, message}]',
    },
  },
  'schema-retry': {
    when: 'the answer did not match --schema; a corrective turn follows, with its own turn-start',
    fields: {
      turn: 'the assistant turn that did not match',
      attempt: 'the corrective turn about to start, from 1',
      retries: 'corrective turns allowed (--schema-retries)',
      errors: "the validator's complaints, [{path, message}], quoted to the council",
    },
  },
  injected: {
    when: 'terminal, inject --no-wait only: the orchestrator acknowledged the guidance',
    fields: {
      session: 'session id',
      job_id: 'deliberation id',
      sequence: 'its number within the job, or null when the orchestrator did not say (compat fallback)',
      round: 'round it lands in, or null likewise',
    },
  },
  cancelled: {
    when: 'terminal, cancel only: the deliberation was cancelled',
    fields: { session: 'session id', job_id: 'deliberation id' },
  },
  error: {
    when: 'terminal: the run failed (also on Ctrl-C)',
    fields: {
      code: 'usage, not_found, auth, server, network, conflict, store, cancelled, tool_pending, io, gate_failed, inconclusive, schema_mismatch, cost_cap, incomplete, timeout, interrupted or bug',
      exit_code: 'the exit code nsed ends with',
      message: 'one line',
      verdict: 'what the council had reported when the turn ended, or null when no turn ran',
      gate: 'always null: gates judge only completed turns',
      usage: 'what the turn had cost when it ended, or null when no turn ran',
      status: 'how the turn was recorded: failed, interrupted or cancelled; null when none was',
    },
  },
};

/** What the export's `ndjson` format leaves out or merges, for the golden comparison. */
export const NDJSON_TIMING_FIELDS =
  'seq, the url of turn-start, reasoning events, unscored rounds, reconnect, finalized, chosen and tool-result events, how the answer is split into text events, and where an injection sits among the progress events';
