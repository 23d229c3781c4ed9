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

export interface SimAgent {
  agent_id: string;
  model_name: string;
  provider_id: string;
  angle: Angle;
  description: string;
}

export const AGENTS: readonly SimAgent[] = [
  {
    agent_id: 'CortexA',
    model_name: 'sim-small',
    provider_id: 'sim',
    angle: 'simplicity',
    description: 'favours the simplest design that works',
  },
  {
    agent_id: 'CortexB',
    model_name: 'sim-medium',
    provider_id: 'sim',
    angle: 'performance',
    description: 'favours throughput and latency',
  },
  {
    agent_id: 'CortexC',
    model_name: 'sim-large',
    provider_id: 'sim',
    angle: 'safety',
    description: 'favours correctness and failure handling',
  },
  {
    agent_id: 'CortexD',
    model_name: 'sim-small',
    provider_id: 'sim',
    angle: 'cost',
    description: 'favours cheap operation',
  },
  {
    agent_id: 'CortexE',
    model_name: 'sim-medium',
    provider_id: 'sim',
    angle: 'maintainability',
    description: 'favours code that stays easy to change',
  },
  {
    agent_id: 'CortexF',
    model_name: 'sim-large',
    provider_id: 'sim',
    angle: 'observability',
    description: 'favours systems you can see into',
  },
];

export const DEFAULT_COUNCIL: readonly string[] = ['CortexA', 'CortexB', 'CortexC'];

/** Known agents keep their own angle; any other name (a native council) gets one by position. */
export function angleOf(agentId: string, position: number): Angle {
  const known = AGENTS.find((a) => a.agent_id === agentId);
  if (known) return known.angle;
  return ANGLES[position % ANGLES.length] ?? 'simplicity';
}

/** The `GET /agents` shape of docs/protocol.md §3.15. */
export function agentListing(): Array<Record<string, unknown>> {
  return AGENTS.map((a) => ({
    agent_id: a.agent_id,
    model_name: a.model_name,
    provider_id: a.provider_id,
    is_online: true,
    estimated_cost_per_round: 0,
    capability_tags: [a.angle],
    operator: 'nsed-sim',
    operator_tags: ['sim'],
    operator_display_name: 'nsed simulator',
    description: a.description,
  }));
}
