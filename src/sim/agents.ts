/** The lens a simulated agent argues from; it decides the angle of its proposals and claims. */
export type Angle = 'simplicity' | 'performance' | 'safety' | 'cost' | 'maintainability' | 'observability';

export const ANGLES: readonly Angle[] = [
  'simplicity',
  'performance',
  'safety',
  'cost',
  'maintainability',
  'observability',
];

/** What a model costs, in US dollars per million tokens (the `/agents` fields of docs/protocol.md). */
export interface Price {
  input_price_per_mtok: number;
  output_price_per_mtok: number;
}

export interface SimAgent {
  agent_id: string;
  model_name: string;
  /** The model family (`simlm`, `mockgpt`, …): the part of `model_name` before its size. */
  model_family: string;
  provider_id: string;
  angle: Angle;
  description: string;
  price: Price;
}

/**
 * Three families from three providers, so the default council (A, B, C) spans two families, as a
 * council should (a panel of one family votes like far fewer judges); `--single-family` makes
 * every agent one family (see singleFamily).
 */
export const AGENTS: readonly SimAgent[] = [
  {
    agent_id: 'CortexA',
    model_name: 'simlm-small',
    model_family: 'simlm',
    provider_id: 'sim-labs',
    angle: 'simplicity',
    description: 'favours the simplest design that works',
    price: { input_price_per_mtok: 0.15, output_price_per_mtok: 0.6 },
  },
  {
    agent_id: 'CortexB',
    model_name: 'mockgpt-medium',
    model_family: 'mockgpt',
    provider_id: 'mock-ai',
    angle: 'performance',
    description: 'favours throughput and latency',
    price: { input_price_per_mtok: 1, output_price_per_mtok: 4 },
  },
  {
    agent_id: 'CortexC',
    model_name: 'simlm-large',
    model_family: 'simlm',
    provider_id: 'sim-labs',
    angle: 'safety',
    description: 'favours correctness and failure handling',
    price: { input_price_per_mtok: 3, output_price_per_mtok: 15 },
  },
  {
    agent_id: 'CortexD',
    model_name: 'mockgpt-small',
    model_family: 'mockgpt',
    provider_id: 'mock-ai',
    angle: 'cost',
    description: 'favours cheap operation',
    price: { input_price_per_mtok: 0.1, output_price_per_mtok: 0.4 },
  },
  {
    agent_id: 'CortexE',
    model_name: 'fauxstral-medium',
    model_family: 'fauxstral',
    provider_id: 'faux-cloud',
    angle: 'maintainability',
    description: 'favours code that stays easy to change',
    price: { input_price_per_mtok: 0.8, output_price_per_mtok: 2.4 },
  },
  {
    agent_id: 'CortexF',
    model_name: 'mockgpt-large',
    model_family: 'mockgpt',
    provider_id: 'mock-ai',
    angle: 'observability',
    description: 'favours systems you can see into',
    price: { input_price_per_mtok: 2.5, output_price_per_mtok: 10 },
  },
];

/** A council of one family: every agent a size of `simlm` from `sim-labs` (`--single-family`). */
export function singleFamily(agent: SimAgent): SimAgent {
  const size = agent.model_name.slice(agent.model_name.lastIndexOf('-') + 1);
  return { ...agent, model_name: `simlm-${size}`, model_family: 'simlm', provider_id: 'sim-labs' };
}

/** An agent the listing does not know (a native council's own names) is priced as a medium model. */
const UNLISTED_PRICE: Price = { input_price_per_mtok: 1, output_price_per_mtok: 4 };

export const priceOf = (agentId: string): Price => AGENTS.find((a) => a.agent_id === agentId)?.price ?? UNLISTED_PRICE;

/** Tokens one agent reads and writes in a round, about: what `estimated_cost_per_round` assumes. */
const ROUND_TOKENS = { input: 2000, output: 600 };

/** An agent's expected cost of one round (propose and evaluate) at its prices. */
export const costPerRound = (p: Price): number =>
  Math.round((ROUND_TOKENS.input * p.input_price_per_mtok + ROUND_TOKENS.output * p.output_price_per_mtok) / 1e2) / 1e4;

export const DEFAULT_COUNCIL: readonly string[] = ['CortexA', 'CortexB', 'CortexC'];

/** Known agents keep their own angle; any other name (a native council) gets one by position. */
export function angleOf(agentId: string, position: number): Angle {
  const known = AGENTS.find((a) => a.agent_id === agentId);
  if (known) return known.angle;
  return ANGLES[position % ANGLES.length] ?? 'simplicity';
}

/**
 * The `GET /agents` shape of docs/protocol.md §3.15. `prices`: list `estimated_cost_per_round`
 * and the per-token prices (`input_price_per_mtok`, `output_price_per_mtok`, dollars per million
 * tokens); a server that reports no cost lists none. `model_family` says which family each
 * model is of (the simulator's own field; a real listing may not carry it).
 */
export function agentListing(opts: { prices: boolean; singleFamily: boolean }): Array<Record<string, unknown>> {
  return AGENTS.map((agent) => {
    const a = opts.singleFamily ? singleFamily(agent) : agent;
    return {
      agent_id: a.agent_id,
      model_name: a.model_name,
      model_family: a.model_family,
      provider_id: a.provider_id,
      is_online: true,
      ...(opts.prices ? { estimated_cost_per_round: costPerRound(a.price), ...a.price } : {}),
      capability_tags: [a.angle],
      operator: 'nsed-sim',
      operator_tags: ['sim'],
      operator_display_name: 'nsed simulator',
      description: a.description,
    };
  });
}
