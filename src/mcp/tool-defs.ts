// The tools of `nsed mcp` as data: name, description, input and output JSON Schemas. The server
// lists them as they are, and README's tool reference is generated from them (`npm run docs`),
// so what a host sees and what a person reads are one text. Field names follow `-o json` where
// they mean the same (README "Output modes"): session, job_id, status, done, content, verdict,
// gate, usage.

import { GATE_NAMES, type GateName } from '../verdict.js';

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
}

/** The default and the ceiling of one `wait`: under a host's usual 60 s request timeout. */
export const WAIT_DEFAULT_S = 45;
export const WAIT_MAX_S = 55;

const str = (description: string): Record<string, unknown> => ({ type: 'string', description });
const nullable = (type: string, description: string): Record<string, unknown> => ({
  type: [type, 'null'],
  description,
});

const SESSION = { type: 'string', minLength: 1, description: 'a session id (or a unique prefix of one)' };

/** What the council asks the host and waits for: a tool call or an ask_user question. */
const PENDING_CALLS = {
  type: 'array',
  description: 'tool calls and ask_user questions the council waits on; answer each with answer_tool_call',
  items: {
    type: 'object',
    properties: {
      id: str('the call id, for answer_tool_call'),
      name: str('the tool called (ask_user: a question for the person)'),
      arguments: str('the call arguments as JSON text'),
      question: nullable('string', 'ask_user: the question'),
      options: { type: 'array', items: { type: 'string' }, description: 'ask_user: the offered choices' },
    },
    required: ['id', 'name', 'arguments'],
  },
};

const ROUNDS = {
  type: 'array',
  description: 'the scored rounds seen since `after`: round number, convergence, leader',
  items: {
    type: 'object',
    properties: {
      round: { type: 'integer' },
      total_rounds: { type: 'integer' },
      convergence: nullable('number', 'the round convergence, 0..1, when the server reported one'),
      leader: nullable('string', 'the agent whose candidate scored highest'),
    },
    required: ['round'],
  },
};

const ERROR = {
  type: ['object', 'null'],
  description: 'how the deliberation ended other than completed: nsed error code, exit code, message',
  properties: {
    code: { type: 'string' },
    exit_code: { type: ['integer', 'null'], description: 'null when only the store was read' },
    message: { type: 'string' },
  },
};

/** The state of a deliberation: what deliberate, wait, continue and fork answer. */
const TURN_STATE: JsonSchema = {
  type: 'object',
  properties: {
    session: nullable('string', 'the session id: wait, inject, cancel, continue and fork take it'),
    job_id: nullable('string', 'the deliberation id on the orchestrator'),
    status: {
      type: 'string',
      enum: ['starting', 'running', 'waiting', 'complete', 'failed', 'cancelled', 'interrupted'],
      description: 'waiting: a tool call or question awaits its answer (pending_calls)',
    },
    done: { type: 'boolean', description: 'true once the deliberation ended: content and verdict are final' },
    seq: { type: 'integer', description: 'the last event seen; pass it to wait as `after`' },
    rounds: ROUNDS,
    injections: {
      type: 'array',
      items: { type: 'object', properties: { message: { type: 'string' }, round: { type: 'integer' } } },
    },
    pending_calls: PENDING_CALLS,
    content: nullable('string', 'the answer once done (null before)'),
    verdict: { type: ['object', 'null'], description: 'the council verdict (docs/ndjson.md "The verdict")' },
    gate: { type: ['object', 'null'], description: 'the gates result, or null when no gate was set' },
    structured: { description: 'with a schema: the answer parsed, or null when it does not match' },
    usage: {
      type: ['object', 'null'],
      description: 'token and cost figures; null while the orchestrator reports none',
    },
    error: ERROR,
  },
  required: ['session', 'job_id', 'status', 'done', 'seq', 'content', 'verdict', 'gate', 'usage'],
};

/** Each gate's value as the --gates file holds it: one entry per gate the CLI knows (the compiler checks). */
const GATE_TYPES: Record<GateName, { type: string }> = {
  'min-convergence': { type: 'number' },
  'max-wrong': { type: 'integer' },
  'max-contested': { type: 'integer' },
  'min-score': { type: 'number' },
  'min-margin': { type: 'number' },
  'min-agreement': { type: 'number' },
  'min-endorse': { type: 'integer' },
  'min-endorse-share': { type: 'number' },
  'max-synthetic': { type: 'number' },
  'max-cost': { type: 'number' },
};

const GATES = {
  type: 'object',
  description: 'the gates the answer is judged against, as the --gates file holds them',
  properties: Object.fromEntries(GATE_NAMES.map((n) => [n, GATE_TYPES[n]])),
  additionalProperties: false,
};

/** What every turn-starting tool takes beside its session. */
const TURN_INPUT = {
  question: { type: 'string', minLength: 1, description: 'what the council is asked' },
  policy: str('a policy name or tag (nsed policies lists them); default: the configured one'),
  agents: {
    type: 'array',
    items: { type: 'string' },
    minItems: 2,
    description: 'choose the council yourself (nsed agents lists them); not with policy',
  },
  rounds: { type: 'integer', minimum: 1, maximum: 100, description: 'deliberation rounds' },
  files: {
    type: 'array',
    items: { type: 'string' },
    description: "files or globs in the host's workspace, attached below the question as -f attaches them",
  },
  schema: { type: 'object', description: 'a JSON Schema the answer must match (as --schema)' },
  gates: GATES,
  max_cost: {
    type: 'number',
    exclusiveMinimum: 0,
    description:
      'a cost cap in dollars (as --max-cost): the deliberation is cancelled once it has cost this much, and the error says cost_cap',
  },
  max_tokens: {
    type: 'integer',
    minimum: 1,
    description: 'a cap on tokens in plus out (as --max-tokens), likewise',
  },
  allow_unmetered: {
    type: 'boolean',
    description: 'run under a cap even where the server cannot meter it (as --allow-unmetered)',
  },
  tools: {
    type: 'array',
    description: 'tools offered to the council, answered by you with answer_tool_call (never run by nsed)',
    items: {
      type: 'object',
      properties: { name: { type: 'string' }, description: { type: 'string' }, parameters: { type: 'object' } },
      required: ['name'],
    },
  },
  ask_user: { type: 'boolean', description: 'let the council ask the person a question (elicitation or wait)' },
  wait: {
    type: 'boolean',
    default: true,
    description:
      'true: return the answer (keep timeout_s under the host timeout); false: return session and job at once',
  },
  timeout_s: {
    type: 'number',
    minimum: 1,
    maximum: WAIT_MAX_S,
    description: `with wait: return after this many seconds even if not done (default ${WAIT_DEFAULT_S}); then call wait`,
  },
};

export const MCP_TOOLS: readonly McpToolDef[] = [
  {
    name: 'deliberate',
    title: 'Ask the council',
    description:
      'Start a deliberation of an NSED council on a question, optionally with files from the workspace. ' +
      'It returns the answer, verdict and gate result when done within timeout_s; otherwise (or with wait:false) ' +
      'the session, and you call wait with it until done is true.',
    inputSchema: {
      type: 'object',
      properties: {
        ...TURN_INPUT,
        idempotency_key: str(
          'the same key on a retry follows or replays the first deliberation instead of paying again',
        ),
      },
      required: ['question'],
    },
    outputSchema: TURN_STATE,
    readOnly: false,
  },
  {
    name: 'wait',
    title: 'Wait for a deliberation',
    description:
      'Wait for what happens next in a session: new rounds, a question for you, or the end. Returns within ' +
      'timeout_s; call it again with after=seq until done is true. ' +
      'Without after, it waits for what is new since your last call on this session.',
    inputSchema: {
      type: 'object',
      properties: {
        session: SESSION,
        after: {
          type: 'integer',
          minimum: 0,
          description:
            'the seq of the last answer; only later events are returned (default: the seq this connection was last given)',
        },
        timeout_s: {
          type: 'number',
          minimum: 1,
          maximum: WAIT_MAX_S,
          description: `return after this many seconds even if nothing happened (default ${WAIT_DEFAULT_S})`,
        },
      },
      required: ['session'],
    },
    outputSchema: TURN_STATE,
    readOnly: true,
  },
  {
    name: 'continue',
    title: 'Ask a follow-up',
    description: 'The next turn of a session, from its tip. Same answer shape as deliberate.',
    inputSchema: {
      type: 'object',
      properties: { session: SESSION, ...TURN_INPUT },
      required: ['session', 'question'],
    },
    outputSchema: TURN_STATE,
    readOnly: false,
  },
  {
    name: 'fork',
    title: 'Branch a session',
    description: 'A new session holding the turns up to `at` (default: all), then the question as its next turn.',
    inputSchema: {
      type: 'object',
      properties: {
        session: SESSION,
        at: str('the last turn to keep: a turn id, a 1-based index, or a negative index from the end (default: all)'),
        ...TURN_INPUT,
      },
      required: ['session', 'question'],
    },
    outputSchema: TURN_STATE,
    readOnly: false,
  },
  {
    name: 'inject',
    title: 'Steer a running deliberation',
    description: 'Send guidance into the running deliberation of a session; it lands at the next phase boundary.',
    inputSchema: {
      type: 'object',
      properties: {
        session: SESSION,
        message: { type: 'string', minLength: 1, description: 'the guidance, as the council will read it' },
      },
      required: ['session', 'message'],
    },
    outputSchema: {
      type: 'object',
      properties: {
        session: { type: 'string' },
        job_id: { type: 'string' },
        sequence: nullable('integer', 'where the orchestrator placed it; null when it did not say'),
        round: nullable('integer', 'the round it lands in; null when unknown'),
      },
      required: ['session', 'job_id', 'sequence', 'round'],
    },
    readOnly: false,
  },
  {
    name: 'cancel',
    title: 'Cancel a deliberation',
    description: 'Stop the running deliberation of a session on the orchestrator.',
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
    description: 'Answer a tool call or ask_user question that wait returned in pending_calls.',
    inputSchema: {
      type: 'object',
      properties: {
        session: SESSION,
        call_id: { type: 'string', minLength: 1, description: 'the id of a call in pending_calls' },
        value: { type: 'string', description: 'the result the council reads (for ask_user: the answer)' },
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
    description: "A session's last answer with its verdict, gate result and the last round's ballots.",
    inputSchema: { type: 'object', properties: { session: SESSION }, required: ['session'] },
    outputSchema: {
      type: 'object',
      properties: {
        session: { type: 'string' },
        turn: nullable('string', 'the assistant turn read'),
        status: nullable('string', 'how that turn ended'),
        content: nullable('string', 'its answer'),
        verdict: { type: ['object', 'null'] },
        gate: { type: ['object', 'null'] },
        ballots: {
          type: 'array',
          description: 'the last scored round: each candidate with its agent and score',
          items: { type: 'object' },
        },
        usage: { type: ['object', 'null'] },
      },
      required: ['session', 'turn', 'status', 'content', 'verdict', 'gate', 'ballots', 'usage'],
    },
    readOnly: true,
  },
  {
    name: 'sessions',
    title: 'List sessions',
    description: 'The stored sessions, newest activity first, as `nsed sessions ls --json` lists them.',
    inputSchema: {
      type: 'object',
      properties: {
        state: {
          type: 'string',
          enum: ['ok', 'running', 'interrupted', 'failed', 'cancelled'],
          description: 'only sessions in this state',
        },
        policy: str('only sessions of this policy'),
        limit: { type: 'integer', minimum: 1, maximum: 200, default: 20 },
      },
    },
    outputSchema: {
      type: 'object',
      properties: { sessions: { type: 'array', items: { type: 'object' } } },
      required: ['sessions'],
    },
    readOnly: true,
  },
];
