import { describe, expect, it } from 'vitest';
import type { SimOptions } from '../../src/sim/server.js';
import { getJson, post, sim } from '../harness/sse.js';
import { runHeldNative } from './native-events.js';

// Jobs never advance on their own here; the test releases them phase by phase (sim.control).
const HELD = { hold: true };
const FAULT = 'x-nsed-sim-fault';

interface Usage {
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
  reported_cost_usd?: number;
}
interface Budget {
  job_id: string;
  budget: Record<string, unknown>;
}
interface DetailsEntry {
  round: number;
  proposal: { token_usage?: Usage };
  evaluations: Array<{ evaluation: { token_usage?: Usage } }>;
}

const submit = (url: string, room: string, headers: Record<string, string> = {}) =>
  post(
    `${url}/deliberation`,
    { room_id: room, user_query: 'Design a queue', agent_names: ['CortexA', 'CortexB'], deliberation_rounds: 2 },
    headers,
  );

/** Every `token_usage` /details shows, proposals and evaluations, with its round. */
async function usagesOf(url: string, room: string): Promise<Array<{ round: number; usage: Usage | undefined }>> {
  const details = (await getJson(`${url}/deliberation/${room}/details`)).body as { history: DetailsEntry[] };
  return details.history.flatMap((h) => [
    { round: h.round, usage: h.proposal.token_usage },
    ...h.evaluations.map((e) => ({ round: h.round, usage: e.evaluation.token_usage })),
  ]);
}

const budgetOf = async (url: string, room: string): Promise<Budget> =>
  (await getJson(`${url}/deliberation/${room}/budget`)).body as Budget;

const sum = (xs: number[]): number => Math.round(xs.reduce((a, b) => a + b, 0) * 1e8) / 1e8;

/** Runs a held native job to its end with the named-event stream attached; its events. */
async function runNative(opts: SimOptions, headers: Record<string, string> = {}) {
  const s = await sim({ ...HELD, ...opts });
  const events = await runHeldNative(
    s,
    { room_id: 'room-m', user_query: 'Design a queue', agent_names: ['CortexA', 'CortexB'], deliberation_rounds: 2 },
    headers,
  );
  return { s, events };
}

describe('the simulator meters', () => {
  it('/agents lists prices: estimated_cost_per_round and per-million-token prices for every agent', async () => {
    const s = await sim();
    const agents = (await getJson(`${s.url}/agents`)).body as Array<Record<string, unknown>>;
    expect(agents.length).toBeGreaterThan(2);
    for (const a of agents) {
      expect(a.estimated_cost_per_round).toBeGreaterThan(0);
      expect(a.input_price_per_mtok).toBeGreaterThan(0);
      expect(a.output_price_per_mtok).toBeGreaterThan(a.input_price_per_mtok as number);
    }
  });

  it('/budget answers live while the job runs, its totals growing each phase, in the documented shape', async () => {
    const s = await sim(HELD);
    await submit(s.url, 'room-live');
    await s.control.parked('room-live');
    const before = await budgetOf(s.url, 'room-live');
    expect(before).toMatchObject({
      job_id: 'room-live',
      budget: { scope: 'standard', rounds_completed: 0, total_rounds: 2, total_input_tokens: 0, estimated_cost_usd: 0 },
    });
    expect(typeof before.budget.elapsed_secs).toBe('number');
    expect(typeof before.budget.remaining_secs).toBe('number');
    s.control.release('room-live', 1);
    await s.control.phases('room-live', 1);
    const proposed = (await budgetOf(s.url, 'room-live')).budget;
    expect(proposed.total_input_tokens).toBeGreaterThan(0);
    expect(proposed.rounds_completed).toBe(0);
    s.control.release('room-live', 1);
    await s.control.phases('room-live', 2);
    const evaluated = (await budgetOf(s.url, 'room-live')).budget;
    expect(evaluated.rounds_completed).toBe(1);
    expect(evaluated.estimated_cost_usd).toBeGreaterThan(proposed.estimated_cost_usd as number);
    // What /details reports so far adds up to the live totals.
    const usages = (await usagesOf(s.url, 'room-live')).map((u) => u.usage as Usage);
    expect(sum(usages.map((u) => u.input_tokens))).toBe(evaluated.total_input_tokens);
    expect(sum(usages.map((u) => u.reported_cost_usd ?? 0))).toBeCloseTo(evaluated.estimated_cost_usd as number, 6);
    expect((await getJson(`${s.url}/deliberation/nope/budget`)).status).toBe(404);
  });

  it('proposals and evaluations carry token_usage in /details and the native events; job_complete carries the totals', async () => {
    const { s, events } = await runNative({});
    const usages = (await usagesOf(s.url, 'room-m')).map((u) => u.usage as Usage);
    expect(usages).toHaveLength(2 * (1 + 1) * 2);
    for (const u of usages) {
      expect(u.total_tokens).toBe(u.input_tokens + u.output_tokens);
      expect(u.reported_cost_usd).toBeGreaterThan(0);
    }
    const proposals = events.filter((e) => e.event === 'proposal_submitted');
    expect(proposals.every((e) => (e.data as { token_usage?: Usage }).token_usage !== undefined)).toBe(true);
    const evaluations = events
      .filter((e) => e.event === 'evaluation_submitted')
      .flatMap((e) => (e.data as { evaluations: Array<{ token_usage?: Usage }> }).evaluations);
    expect(evaluations.every((e) => e.token_usage !== undefined)).toBe(true);
    const complete = events.at(-1);
    expect(complete?.event).toBe('job_complete');
    const totals = (complete?.data as { token_usage: Usage }).token_usage;
    expect(totals.input_tokens).toBe(sum(usages.map((u) => u.input_tokens)));
    expect(totals.output_tokens).toBe(sum(usages.map((u) => u.output_tokens)));
    expect(totals.reported_cost_usd).toBeCloseTo(sum(usages.map((u) => u.reported_cost_usd ?? 0)), 6);
    const budget = (await budgetOf(s.url, 'room-m')).budget;
    expect(budget).toMatchObject({
      rounds_completed: 2,
      total_input_tokens: totals.input_tokens,
      total_output_tokens: totals.output_tokens,
      estimated_cost_usd: totals.reported_cost_usd,
    });
  });

  it('is deterministic per seed: the same figures for the same seed and question', async () => {
    const a = await runNative({ seed: 7 });
    const b = await runNative({ seed: 7 });
    expect(await usagesOf(b.s.url, 'room-m')).toEqual(await usagesOf(a.s.url, 'room-m'));
  });

  it('the compat surface keeps its usage (a last chunk with stream_options.include_usage)', async () => {
    const s = await sim();
    const res = await post(`${s.url}/v1/chat/completions`, {
      model: 'nsed:fast',
      messages: [{ role: 'user', content: 'Pick a queue' }],
    });
    const body = (await res.json()) as { usage: { prompt_tokens: number; completion_tokens: number } };
    expect(body.usage.prompt_tokens).toBeGreaterThan(0);
    expect(body.usage.completion_tokens).toBeGreaterThan(0);
  });
});

describe('metering faults and the strict profile', () => {
  it('meter=tokens: tokens everywhere, never a dollar; /agents still lists prices (a client can estimate)', async () => {
    const { s, events } = await runNative({}, { [FAULT]: 'meter=tokens' });
    const usages = (await usagesOf(s.url, 'room-m')).map((u) => u.usage as Usage);
    expect(usages.every((u) => u.input_tokens > 0 && !('reported_cost_usd' in u))).toBe(true);
    const totals = (events.at(-1)?.data as { token_usage: Usage }).token_usage;
    expect(totals.input_tokens).toBeGreaterThan(0);
    expect(totals).not.toHaveProperty('reported_cost_usd');
    const budget = (await budgetOf(s.url, 'room-m')).budget;
    expect(budget.total_input_tokens).toBe(totals.input_tokens);
    expect(budget).not.toHaveProperty('estimated_cost_usd');
    const agents = (await getJson(`${s.url}/agents`)).body as Array<Record<string, unknown>>;
    expect(agents[0]).toHaveProperty('input_price_per_mtok');
  });

  it('meter=none (all scope): no token_usage, no totals, a /budget of time and rounds only, no prices', async () => {
    const { s, events } = await runNative({ faults: ['all:meter=none'] });
    expect((await usagesOf(s.url, 'room-m')).every((u) => u.usage === undefined)).toBe(true);
    expect(events.some((e) => JSON.stringify(e.data).includes('token_usage'))).toBe(false);
    const budget = (await budgetOf(s.url, 'room-m')).budget;
    expect(budget).toMatchObject({ rounds_completed: 2, total_rounds: 2 });
    expect(Object.keys(budget).sort()).toEqual(
      ['elapsed_secs', 'remaining_secs', 'rounds_completed', 'scope', 'total_rounds'].sort(),
    );
    const agents = (await getJson(`${s.url}/agents`)).body as Array<Record<string, unknown>>;
    expect(agents.some((a) => 'estimated_cost_per_round' in a || 'input_price_per_mtok' in a)).toBe(false);
  });

  it('budget=404: the job runs and reports its usage, but its /budget is 404', async () => {
    const { s, events } = await runNative({}, { [FAULT]: 'budget=404' });
    expect(events.at(-1)?.event).toBe('job_complete');
    expect((await getJson(`${s.url}/deliberation/room-m/budget`)).status).toBe(404);
    expect((await getJson(`${s.url}/deliberation/room-m/details`)).status).toBe(200);
  });

  it('meter=runaway: from round 2 every call reports fifty times the tokens and dollars', async () => {
    const { s } = await runNative({}, { [FAULT]: 'meter=runaway' });
    const usages = await usagesOf(s.url, 'room-m');
    const cost = (round: number): number =>
      sum(usages.filter((u) => u.round === round).map((u) => u.usage?.reported_cost_usd ?? 0));
    expect(cost(2)).toBeGreaterThan(20 * cost(1));
  });

  it('--profile strict reports no cost: tokens only, and /agents lists no prices', async () => {
    const { s, events } = await runNative({ profile: 'strict' });
    const usages = (await usagesOf(s.url, 'room-m')).map((u) => u.usage as Usage);
    expect(usages.every((u) => u.input_tokens > 0 && !('reported_cost_usd' in u))).toBe(true);
    expect((events.at(-1)?.data as { token_usage: Usage }).token_usage).not.toHaveProperty('reported_cost_usd');
    expect((await budgetOf(s.url, 'room-m')).budget).not.toHaveProperty('estimated_cost_usd');
    const agents = (await getJson(`${s.url}/agents`)).body as Array<Record<string, unknown>>;
    expect(agents.some((a) => 'estimated_cost_per_round' in a || 'input_price_per_mtok' in a)).toBe(false);
  });

  it('refuses a bad meter or budget fault with the choices', async () => {
    const s = await sim();
    const res = await submit(s.url, 'room-bad', { [FAULT]: 'meter=free' });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toContain(
      "fault 'meter' is one of full, tokens, none, runaway",
    );
  });
});
