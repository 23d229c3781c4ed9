import type { AgentInfo } from '../protocol/wire.js';
import type { CommandDef } from './command.js';

/** `nsed agents`: the orchestrator's registered agents (`GET /agents`), the names `--agents` takes. */
export const agents: CommandDef<Record<string, never>> = {
  command: 'agents',
  describe: "list the orchestrator's agents (what --agents takes)",
  examples: [
    ['nsed agents', 'a table on a terminal, tab-separated lines in a pipe'],
    ["nsed agents -o json | jq -r '.[] | select(.is_online) | .agent_id'", 'the agents online now'],
  ],
  parse: () => ({}),
  run: async (_opts, ctx) => {
    const { fetchListing, printListing } = await import('./shared/listing.js');
    const { items } = await fetchListing(ctx, (client, signal) => client.agents({ signal }));
    await printListing(ctx, items, AGENT_COLUMNS, 'the orchestrator has no agents registered');
    return 0;
  },
};

const AGENT_COLUMNS = [
  { header: 'AGENT', cell: (a: AgentInfo) => a.agent_id, max: 40 },
  { header: 'MODEL', cell: (a: AgentInfo) => a.model_name, max: 40 },
  { header: 'PROVIDER', cell: (a: AgentInfo) => a.provider_id, max: 20 },
  { header: 'ONLINE', cell: (a: AgentInfo) => (a.is_online ? 'yes' : 'no') },
  { header: 'CAPABILITIES', cell: (a: AgentInfo) => a.capability_tags.join(','), max: 40 },
];
