// The tools of `nsed mcp` as data: name, description, input and output JSON Schemas. The server
// lists them as they are, and README's tool reference is generated from them (`npm run docs`),
// so what a host sees and what a person reads are one text. Field names follow `-o json` where
// they mean the same (docs/usage.md "Output modes"): session, job_id, status, done, content, verdict,
// gate, usage.
//
// The list is sent to the model on every request a host makes, so it is kept lean (README "Tool
// list size"): the turn options are described once, in deliberate, and continue and fork carry
// the same schema bare; result schemas give types, not prose, since what a model needs of a
// result is said in the tool's description.

import { TOKEN_BYTES } from './result-fit.js';
import { inToolTerms } from './tool-terms.js';
import { AT_ARG, argSchema, TURN_ARGS, type TurnArg } from './turn-args.js';

/** A JSON Schema object, as MCP's tools/list carries it. */
export type JsonSchema = { type: 'object'; [key: string]: unknown };

export interface McpToolDef {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonSchema;
  outputSchema: JsonSchema;
  /** MCP tool annotations: a host may run a read-only tool without asking. */
  readOnly: boolean;
  /** MCP Tasks (2025-11-25): a host may run the call as a task it polls (src/mcp/tasks-store.ts). */
  execution?: { taskSupport: 'optional' };
}

/** The turn tools run as a task when the host asks, and as a plain call when it does not. */
const AS_TASK = { taskSupport: 'optional' } as const;

/** The default and the ceiling of one `wait`: under a host's usual 60 s request timeout. */
export const WAIT_DEFAULT_S = 45;
export const WAIT_MAX_S = 55;

const orNull = (type: string): Record<string, unknown> => ({ type: [type, 'null'] });
const OBJECT_OR_NULL = orNull('object');
const ARRAY = { type: 'array' };

const SESSION = { type: 'string', minLength: 1, description: 'a session id or a unique prefix' };

/** The state of a deliberation: what deliberate, wait, continue and fork answer. */
const TURN_STATE: JsonSchema = {
  type: 'object',
  properties: {
    session: orNull('string'),
    job_id: orNull('string'),
    // The states are named in TurnState (turn-state.ts); a model learns them from the results.
    status: { type: 'string' },
    done: { type: 'boolean' },
    seq: { type: 'integer' },
    rounds: ARRAY,
    injections: ARRAY,
    pending_calls: ARRAY,
    content: orNull('string'),
    verdict: OBJECT_OR_NULL,
    gate: OBJECT_OR_NULL,
    council: { type: 'object' },
    structured: {},
    usage: OBJECT_OR_NULL,
    error: OBJECT_OR_NULL,
  },
  required: ['session', 'job_id', 'status', 'done', 'seq', 'content', 'verdict', 'gate', 'council', 'usage'],
};

/** What a model is told of every turn result, once per tool that returns one. */
const TURN_RESULT =
  'Result: status, done, seq, rounds, content, verdict, gate, council, usage, error. status waiting: answer each ' +
  'pending_calls entry (id, name, arguments; ask_user: question, options) with answer_tool_call.';

/** The flags' arguments in the tools' schemas: their help lines in the tools' terms. */
const flagArgs = (args: readonly TurnArg[]): Record<string, Record<string, unknown>> =>
  Object.fromEntries(args.map((a) => [a.name, argSchema(a, inToolTerms)]));

/** `detail`: how much of a turn's result the text carries (docs/mcp-results.md). */
export const DETAILS = ['brief', 'full'] as const;
export type Detail = (typeof DETAILS)[number];

/**
 * What every turn-starting tool takes beside its session, described for deliberate: the question,
 * the turn flags' arguments (turn-args.ts), and the call's own controls.
 */
const TURN_INPUT: Record<string, Record<string, unknown>> = {
  question: { type: 'string', minLength: 1, description: 'what the council is asked' },
  ...flagArgs(TURN_ARGS.filter((a) => a.deliberateOnly !== true)),
  on_partial: { enum: ['accept', 'refuse'], description: 'refuse: a council that lost votes is a tool error' },
  wait: {
    type: 'boolean',
    default: true,
    description: 'false: return the session at once, without waiting',
  },
  timeout_s: {
    type: 'number',
    minimum: 1,
    maximum: WAIT_MAX_S,
    description: `return after this many seconds if not done (default ${WAIT_DEFAULT_S})`,
  },
  detail: {
    enum: DETAILS,
    default: 'brief',
    description: 'brief: answer, verdict line, links; full: also rounds, gates, usage, pending calls',
  },
};

/**
 * The turn options as continue and fork carry them: deliberate's schema without the prose (its
 * description sends the model there), which is a third of the list's bytes saved twice.
 */
const TURN_INPUT_BARE = Object.fromEntries(
  Object.entries(TURN_INPUT).map(([name, { description: _prose, ...schema }]) => [name, schema]),
);

export const MCP_TOOLS: readonly McpToolDef[] = [
  {
    name: 'deliberate',
    title: 'Ask the council',
    description:
      'Ask a council of models a question (a deliberation of minutes). Returns when done or after timeout_s; ' +
      `while done is false, call wait with the session and after=seq. ${TURN_RESULT}`,
    inputSchema: {
      type: 'object',
      properties: {
        ...TURN_INPUT,
        ...flagArgs(TURN_ARGS.filter((a) => a.deliberateOnly === true)),
      },
      required: ['question'],
    },
    outputSchema: TURN_STATE,
    readOnly: false,
    execution: AS_TASK,
  },
  {
    name: 'wait',
    title: 'Wait for a deliberation',
    description:
      'Wait for new rounds, a council question or the end; call again with after=seq until done. ' +
      "Without after: what is new since your last call on this session. Result as deliberate's.",
    inputSchema: {
      type: 'object',
      properties: {
        session: SESSION,
        after: {
          type: 'integer',
          minimum: 0,
          description: 'the seq of the last answer (default: the last seq this connection was given)',
        },
        timeout_s: { type: 'number', minimum: 1, maximum: WAIT_MAX_S, description: `default ${WAIT_DEFAULT_S}` },
        detail: TURN_INPUT_BARE['detail'],
      },
      required: ['session'],
    },
    outputSchema: TURN_STATE,
    readOnly: true,
  },
  {
    name: 'continue',
    title: 'Ask a follow-up',
    description: "The next turn of a session. Options and result as deliberate's.",
    inputSchema: {
      type: 'object',
      properties: { session: SESSION, ...TURN_INPUT_BARE },
      required: ['session', 'question'],
    },
    outputSchema: TURN_STATE,
    readOnly: false,
    execution: AS_TASK,
  },
  {
    name: 'fork',
    title: 'Branch a session',
    description: "A new session with the turns up to `at`, then the question. Options and result as deliberate's.",
    inputSchema: {
      type: 'object',
      properties: {
        session: SESSION,
        ...flagArgs([AT_ARG]),
        ...TURN_INPUT_BARE,
      },
      required: ['session', 'question'],
    },
    outputSchema: TURN_STATE,
    readOnly: false,
    execution: AS_TASK,
  },
  {
    name: 'inject',
    title: 'Steer a running deliberation',
    description: "Send guidance into a session's running deliberation; it lands at the next phase.",
    inputSchema: {
      type: 'object',
      properties: { session: SESSION, message: { type: 'string', minLength: 1 } },
      required: ['session', 'message'],
    },
    outputSchema: {
      type: 'object',
      properties: {
        session: { type: 'string' },
        job_id: { type: 'string' },
        sequence: orNull('integer'),
        round: orNull('integer'),
      },
      required: ['session', 'job_id', 'sequence', 'round'],
    },
    readOnly: false,
  },
  {
    name: 'cancel',
    title: 'Cancel a deliberation',
    description: "Stop a session's running deliberation.",
    inputSchema: { type: 'object', properties: { session: SESSION }, required: ['session'] },
    outputSchema: {
      type: 'object',
      properties: { session: { type: 'string' }, job_id: { type: 'string' } },
      required: ['session', 'job_id'],
    },
    readOnly: false,
  },
  {
    name: 'answer_tool_call',
    title: 'Answer the council',
    description: 'Answer a pending_calls entry: a tool call or an ask_user question.',
    inputSchema: {
      type: 'object',
      properties: {
        session: SESSION,
        call_id: { type: 'string', minLength: 1, description: 'its id' },
        value: { type: 'string', description: 'the result (ask_user: the answer)' },
      },
      required: ['session', 'call_id', 'value'],
    },
    outputSchema: {
      type: 'object',
      properties: { session: { type: 'string' }, job_id: { type: 'string' }, call_id: { type: 'string' } },
      required: ['session', 'job_id', 'call_id'],
    },
    readOnly: false,
  },
  {
    name: 'verdict',
    title: 'Read a verdict',
    description: "A session's last answer with its verdict, gate result and last round's ballots.",
    inputSchema: { type: 'object', properties: { session: SESSION }, required: ['session'] },
    outputSchema: {
      type: 'object',
      properties: {
        session: { type: 'string' },
        turn: orNull('string'),
        status: orNull('string'),
        content: orNull('string'),
        verdict: OBJECT_OR_NULL,
        gate: OBJECT_OR_NULL,
        ballots: ARRAY,
        usage: OBJECT_OR_NULL,
      },
      required: ['session', 'turn', 'status', 'content', 'verdict', 'gate', 'ballots', 'usage'],
    },
    readOnly: true,
  },
  {
    name: 'sessions',
    title: 'List sessions',
    description: 'The stored sessions, newest first.',
    inputSchema: {
      type: 'object',
      properties: {
        state: { type: 'string', enum: ['ok', 'running', 'interrupted', 'failed', 'cancelled'] },
        policy: { type: 'string' },
        limit: { type: 'integer', minimum: 1, maximum: 200, default: 20 },
      },
    },
    outputSchema: {
      type: 'object',
      properties: { sessions: ARRAY },
      required: ['sessions'],
    },
    readOnly: true,
  },
];

/** Every tool's name, in the order tools/list gives them. */
export const MCP_TOOL_NAMES: readonly string[] = MCP_TOOLS.map((t) => t.name);

/**
 * The tools a `--tools` list (or NSED_MCP_TOOLS) names, in the list's order and once each; or
 * the first name no tool has, for the command to refuse. Blank entries are ignored, so `a,,b`
 * and a trailing comma are the list a person meant.
 */
export function pickTools(list: string): { tools: McpToolDef[] } | { unknown: string } {
  const picked: McpToolDef[] = [];
  for (const name of list.split(',').map((n) => n.trim())) {
    if (name === '') continue;
    const def = MCP_TOOLS.find((t) => t.name === name);
    if (def === undefined) return { unknown: name };
    if (!picked.includes(def)) picked.push(def);
  }
  return { tools: picked };
}

/** One tool as tools/list carries it: the one shape the server serves and `--print-tools` measures. */
export function listedTool(t: McpToolDef): Record<string, unknown> {
  return {
    name: t.name,
    title: t.title,
    description: t.description,
    inputSchema: t.inputSchema,
    outputSchema: t.outputSchema,
    // Only what differs from the spec's defaults (not read-only, open world): the list is sent on every request.
    ...(t.readOnly ? { annotations: { readOnlyHint: true } } : {}),
    ...(t.execution === undefined ? {} : { execution: t.execution }),
  };
}

/** What a tools/list of `defs` costs a host: its JSON in bytes, and tokens estimated at 4 bytes each. */
export function toolListSize(defs: readonly McpToolDef[]): { bytes: number; tokens: number } {
  const bytes = Buffer.byteLength(JSON.stringify({ tools: defs.map(listedTool) }), 'utf8');
  return { bytes, tokens: Math.ceil(bytes / TOKEN_BYTES) };
}
