import type {
  AgentInfo,
  ChatCompletion,
  FinishReason,
  HealthInfo,
  InjectAck,
  JobResult,
  ModelInfo,
  PolicyInfo,
  ToolCall,
} from '../protocol/wire.js';
import { NsedError } from '../errors.js';
import { isRecord, type Rec } from './decode-chunk.js';
import { sanitizeServerText } from './redact.js';

/**
 * Success bodies -> wire types. The orchestrator is parsed leniently where docs/protocol.md marks
 * a GAP (defaults from the reference client) and strictly where a wrong value would mislead.
 */

export function unreadable(what: string, text: string, token: string | undefined): NsedError {
  const excerpt = sanitizeServerText(text, token, 120);
  return new NsedError(
    'server',
    `the orchestrator sent an unreadable answer to ${what}${excerpt === '' ? ' (empty body)' : `: ${excerpt}`}`,
  );
}

export function parseJsonBody(what: string, text: string, token: string | undefined): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw unreadable(what, text, token);
  }
}

const FINISH_REASONS: readonly FinishReason[] = [
  'stop',
  'tool_calls',
  'length',
  'content_filter',
  'error',
  'cancelled',
];
const num = (v: unknown, fallback: number): number => (typeof v === 'number' && Number.isFinite(v) ? v : fallback);

export function parseJobResult(v: unknown, jobId: string): JobResult | undefined {
  if (!isRecord(v) || typeof v['status'] !== 'string') return undefined;
  const result = v['result'];
  return {
    job_id: typeof v['job_id'] === 'string' ? v['job_id'] : jobId,
    status: v['status'],
    result: typeof result === 'string' ? result : null,
  };
}

/** `GET /deliberations`: `{jobs: [{job_id, status}]}`; entries without both strings are skipped. */
export function parseJobList(v: unknown): Array<{ job_id: string; status: string }> | undefined {
  if (!isRecord(v) || !Array.isArray(v['jobs'])) return undefined;
  return v['jobs']
    .filter(isRecord)
    .flatMap((j) =>
      typeof j['job_id'] === 'string' && typeof j['status'] === 'string'
        ? [{ job_id: j['job_id'], status: j['status'] }]
        : [],
    );
}

export function parseInjectAck(v: unknown): InjectAck | undefined {
  if (!isRecord(v) || typeof v['sequence'] !== 'number' || !Number.isFinite(v['sequence'])) return undefined;
  return { sequence: v['sequence'], injected_at_round: num(v['injected_at_round'], 0) };
}

export function parseSubmit(v: unknown): { job_id: string } | undefined {
  if (!isRecord(v) || typeof v['job_id'] !== 'string' || v['job_id'] === '') return undefined;
  return { job_id: v['job_id'] };
}

function policyOf(v: Rec): PolicyInfo | undefined {
  const id = v['policy_id'];
  if (typeof id !== 'string' || id === '') return undefined;
  const p: PolicyInfo = {
    policy_id: id,
    name: typeof v['name'] === 'string' ? v['name'] : id,
    tags: Array.isArray(v['tags']) ? v['tags'].filter((t): t is string => typeof t === 'string') : [],
    max_rounds: num(v['max_rounds'], num(v['rounds'], 3)),
    effort: num(v['effort'], num(v['convergence_threshold'], 0.85)),
    is_role_based: v['is_role_based'] === true,
  };
  if (typeof v['mode'] === 'string') p.mode = v['mode'];
  const sla = v['sla'];
  if (isRecord(sla) && typeof sla['job_timeout_secs'] === 'number')
    p.sla = { job_timeout_secs: sla['job_timeout_secs'] };
  const agents = v['agents'];
  if (Array.isArray(agents) && agents.length > 0 && agents.every((a) => typeof a === 'string' && a !== ''))
    p.agents = agents as string[];
  return p;
}

/** `GET /policies`: an array, or (leniently) `{"policies": [...]}`; entries without an id are skipped. */
export function parsePolicies(v: unknown): PolicyInfo[] | undefined {
  const list = Array.isArray(v) ? v : isRecord(v) && Array.isArray(v['policies']) ? v['policies'] : undefined;
  if (list === undefined) return undefined;
  const out: PolicyInfo[] = [];
  for (const item of list) {
    const p = isRecord(item) ? policyOf(item) : undefined;
    if (p !== undefined) out.push(p);
  }
  return out;
}

/** `GET /agents`: an array (or `{"agents": [...]}`); entries without an agent_id are skipped. */
export function parseAgents(v: unknown): AgentInfo[] | undefined {
  const list = Array.isArray(v) ? v : isRecord(v) && Array.isArray(v['agents']) ? v['agents'] : undefined;
  if (list === undefined) return undefined;
  const out: AgentInfo[] = [];
  for (const a of list) {
    if (!isRecord(a) || typeof a['agent_id'] !== 'string') continue;
    const str = (k: string): string => (typeof a[k] === 'string' ? (a[k] as string) : '');
    const tags = Array.isArray(a['capability_tags'])
      ? a['capability_tags'].filter((t): t is string => typeof t === 'string')
      : [];
    const info: AgentInfo = {
      agent_id: a['agent_id'],
      model_name: str('model_name'),
      provider_id: str('provider_id'),
      is_online: a['is_online'] !== false,
      capability_tags: tags,
    };
    if (typeof a['operator'] === 'string') info.operator = a['operator'];
    if (typeof a['description'] === 'string') info.description = a['description'];
    for (const k of ['input_price_per_mtok', 'output_price_per_mtok', 'estimated_cost_per_round'] as const) {
      const n = a[k];
      if (typeof n === 'number' && Number.isFinite(n) && n >= 0) info[k] = n;
    }
    out.push(info);
  }
  return out;
}

/** `GET /v1/models`: `{"data": [{id, owned_by}]}`, or (leniently) a bare array. */
export function parseModels(v: unknown): ModelInfo[] | undefined {
  const list = Array.isArray(v) ? v : isRecord(v) && Array.isArray(v['data']) ? v['data'] : undefined;
  if (list === undefined) return undefined;
  const out: ModelInfo[] = [];
  for (const m of list) {
    if (!isRecord(m) || typeof m['id'] !== 'string') continue;
    out.push(typeof m['owned_by'] === 'string' ? { id: m['id'], owned_by: m['owned_by'] } : { id: m['id'] });
  }
  return out;
}

/** `GET /health`: any JSON object with a string status. */
export function parseHealth(v: unknown): HealthInfo | undefined {
  if (!isRecord(v) || typeof v['status'] !== 'string') return undefined;
  return typeof v['nats_connection'] === 'string'
    ? { status: v['status'], nats_connection: v['nats_connection'] }
    : { status: v['status'] };
}

function toolCallsOf(v: unknown): ToolCall[] | undefined {
  if (!Array.isArray(v)) return undefined;
  const calls: ToolCall[] = [];
  for (const c of v) {
    if (!isRecord(c) || typeof c['id'] !== 'string') continue;
    const fn = c['function'];
    if (!isRecord(fn) || typeof fn['name'] !== 'string') continue;
    calls.push({
      id: c['id'],
      type: 'function',
      function: { name: fn['name'], arguments: typeof fn['arguments'] === 'string' ? fn['arguments'] : '' },
    });
  }
  return calls;
}

/** A non-streaming `chat.completion`; unknown finish reasons read as `stop`. */
export function parseChatCompletion(v: unknown): ChatCompletion | undefined {
  if (!isRecord(v) || !Array.isArray(v['choices'])) return undefined;
  const choices: ChatCompletion['choices'] = [];
  for (const c of v['choices']) {
    if (!isRecord(c)) continue;
    const m = isRecord(c['message']) ? c['message'] : {};
    const message: ChatCompletion['choices'][number]['message'] = {
      role: 'assistant',
      content: typeof m['content'] === 'string' ? m['content'] : null,
    };
    const tools = toolCallsOf(m['tool_calls']);
    if (tools !== undefined) message.tool_calls = tools;
    const finish = FINISH_REASONS.find((f) => f === c['finish_reason']) ?? 'stop';
    choices.push({ index: num(c['index'], 0), message, finish_reason: finish });
  }
  const completion: ChatCompletion = {
    id: typeof v['id'] === 'string' ? v['id'] : '',
    object: 'chat.completion',
    created: num(v['created'], 0),
    model: typeof v['model'] === 'string' ? v['model'] : '',
    choices,
  };
  const meta = v['nsed_metadata'];
  if (isRecord(meta) && typeof meta['mode'] === 'string') {
    completion.nsed_metadata = {
      mode: meta['mode'],
      ...(typeof meta['session_id'] === 'string' ? { session_id: meta['session_id'] } : {}),
    };
  }
  return completion;
}
