/**
 * Wire shapes shared by the client and the simulator (docs/protocol.md §3-§4). Everything here is
 * what crosses HTTP; nothing here knows about sessions or terminals.
 */

export type Verdict = 'verified' | 'contested' | 'unverified' | 'wrong' | 'unknown';

export interface Claim {
  claim: string;
  verdict: Verdict;
  reason?: string;
}

export interface Candidate {
  agent_id: string;
  score: number;
  content_preview: string;
  thought_preview: string;
  claims: Claim[];
  /**
   * Not on the compat wire: the native `round_summary`'s `real_eval_count`,
   * `synthetic_eval_count` and `controversy_score` of this proposal, when reported.
   */
  real_evals?: number;
  synthetic_evals?: number;
  controversy?: number;
}

/** `delta.nsed_round` (docs/protocol.md §4.4). */
export interface NsedRound {
  round: number;
  total_rounds: number;
  progress: number;
  scored: boolean;
  candidates: Candidate[];
  /**
   * Not on the compat wire: the native `round_summary.convergence_score` of a scored round, which
   * nsed's `round` event carries (docs/ndjson.md). Absent when the server reported none.
   */
  convergence?: number;
  /** Not on the compat wire: the native `round_summary.decisiveness`, when reported. */
  decisiveness?: number;
}

/** `delta.nsed_injected` (docs/protocol.md §4.5). */
export interface NsedInjected {
  message: string;
  round: number;
  sequence: number;
}

export interface NsedFinalized {
  chosen_agent_id: string;
  round: number;
}

/**
 * What native `job_complete` says of the answer (docs/protocol.md §5): whose proposal it is, its
 * score and how many rounds ran, as nsed's `chosen` event carries it. Each null when not sent.
 */
export interface JobChosen {
  agent_id: string;
  score: number | null;
  rounds_completed: number | null;
  total_rounds: number | null;
}

/**
 * A pending call as the native `tool_call_pending` event carries it. `tool_name` is the name the
 * agent saw (`user_` + the declared name); `arguments` is an object, not a JSON string.
 */
export interface ToolCallPending {
  call_id: string;
  agent_id: string;
  tool_name: string;
  arguments: Record<string, unknown>;
  round: number;
  phase: string;
}

/** `tool_call_responded`; `result` is what the simulator adds (the real event may lack it). */
export interface ToolCallResponded {
  call_id: string;
  agent_id: string;
  tool_name: string;
  result?: string;
}

export interface ToolCallExpired {
  call_id: string;
}

export interface ToolCallDelta {
  index: number;
  id?: string;
  type?: 'function';
  function?: { name?: string; arguments?: string };
}

export interface ChunkDelta {
  role?: 'assistant';
  content?: string | null;
  reasoning_content?: string;
  tool_calls?: ToolCallDelta[];
  nsed_session_id?: string;
  nsed_round?: NsedRound;
  nsed_injected?: NsedInjected;
  nsed_finalized?: NsedFinalized;
  /**
   * The native tool-call events, carried on a compat-shaped stream that follows a whole job
   * (resume), where the call does not end the stream. An extension like the other `nsed_*`
   * fields; the native named-event stream carries the same payloads as `tool_call_*` events.
   */
  nsed_tool_call_pending?: ToolCallPending;
  nsed_tool_call_responded?: ToolCallResponded;
  nsed_tool_call_expired?: ToolCallExpired;
}

export type FinishReason = 'stop' | 'tool_calls' | 'length' | 'content_filter' | 'error' | 'cancelled';

export interface ChatCompletionChunk {
  id: string;
  object: 'chat.completion.chunk';
  created?: number;
  model?: string;
  choices: Array<{ index: number; delta: ChunkDelta; finish_reason: FinishReason | null }>;
  /** An error reported inside the stream (docs/reliability.md #19). */
  error?: { message: string; type?: string; code?: string };
}

export interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string | null;
  tool_calls?: ToolCall[];
  tool_call_id?: string;
}

export interface ToolDefinition {
  type: 'function';
  function: { name: string; description?: string; parameters?: Record<string, unknown> };
}

export interface ChatCompletionRequest {
  model: string;
  messages: ChatMessage[];
  stream?: boolean;
  max_tokens?: number;
  tools?: ToolDefinition[];
  /** OpenAI's structured output; the seeds do not say an orchestrator honours it (a GAP). */
  response_format?: ResponseFormat;
}

export type ResponseFormat =
  | { type: 'text' }
  | { type: 'json_object' }
  | { type: 'json_schema'; json_schema: { name: string; schema: Record<string, unknown>; strict?: boolean } };

export interface ChatCompletion {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: Array<{
    index: number;
    message: { role: 'assistant'; content: string | null; tool_calls?: ToolCall[] };
    finish_reason: FinishReason;
  }>;
  nsed_metadata?: { mode: string; session_id?: string };
}

/** `POST /deliberation` body (docs/protocol.md §3.3.1). */
export interface DeliberationRequest {
  room_id: string;
  conversation_id?: string;
  user_query?: string;
  messages?: Array<{ role: string; content: string }>;
  new_turn?: string;
  deliberation_rounds?: number;
  agent_names?: string[];
  policy_id?: string;
  effort?: number;
  system_instructions?: string;
  user_tools?: UserTool[];
}

/** A tool offered on the native surface (`user_tools`). */
export interface UserTool {
  name: string;
  description?: string;
  parameters?: Record<string, unknown>;
  strict?: boolean;
}

/** `GET /deliberation/{id}/tool-calls` record. */
export interface PendingToolCall extends ToolCallPending {
  job_id: string;
  status: 'Pending' | 'Responded' | 'Expired';
  created_at: number;
  responded_at?: number;
  result?: string;
}

/** `GET /deliberation/{id}/result` (docs/protocol.md §3.4). */
export interface JobResult {
  job_id: string;
  status: string;
  result: string | null;
}

/** `POST /deliberation/{id}/inject` 202 body (docs/protocol.md §3.8). */
export interface InjectAck {
  sequence: number;
  injected_at_round: number;
}

export interface PolicyInfo {
  policy_id: string;
  name: string;
  tags: string[];
  max_rounds: number;
  effort: number;
  is_role_based: boolean;
  mode?: string;
  sla?: { job_timeout_secs: number };
  /**
   * The policy's council, where the listing names it (its `config.agents`): nothing documents
   * that `GET /policies` does (docs/protocol.md §3.15), so absent means not known.
   */
  agents?: string[];
}

/** One entry of `GET /agents`; the optional fields are the orchestrator's own. */
export interface AgentInfo {
  agent_id: string;
  model_name: string;
  provider_id: string;
  is_online: boolean;
  capability_tags: string[];
  operator?: string;
  description?: string;
  /** Dollars per million tokens in and out, and per round, where `/agents` lists them. */
  input_price_per_mtok?: number;
  output_price_per_mtok?: number;
  estimated_cost_per_round?: number;
}

/** One entry of `GET /v1/models` (the OpenAI list shape). */
export interface ModelInfo {
  id: string;
  owned_by?: string;
}

/** `GET /health` (no bearer): liveness. */
export interface HealthInfo {
  status: string;
  nats_connection?: string;
}

/** Header names, spelled once. */
export const Headers = {
  opencodeSession: 'x-opencode-session',
  nsedSessionId: 'x-nsed-session-id',
  simFault: 'x-nsed-sim-fault',
} as const;
