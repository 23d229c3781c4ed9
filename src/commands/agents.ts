import type { AgentInfo } from '../protocol/wire.js';
import { listingCommand } from './shared/listing-command.js';

/** `nsed agents`: the orchestrator's registered agents (`GET /agents`), the names `--agents` takes. */
export const agents = listingCommand<AgentInfo>({
  command: 'agents',
  describe: "list the orchestrator's agents (what --agents takes)",
  examples: [
    ['nsed agents', 'a table on a terminal, tab-separated lines in a pipe'],
    ["nsed agents -o json | jq -r '.[] | select(.is_online) | .agent_id'", 'the agents online now'],
  ],
  ask: (client, signal) => client.agents({ signal }),
  columns: [
    { header: 'AGENT', cell: (a) => a.agent_id, max: 40 },
    { header: 'MODEL', cell: (a) => a.model_name, max: 40 },
    { header: 'PROVIDER', cell: (a) => a.provider_id, max: 20 },
    { header: 'ONLINE', cell: (a) => (a.is_online ? 'yes' : 'no') },
    { header: 'CAPABILITIES', cell: (a) => a.capability_tags.join(','), max: 40 },
  ],
  none: 'the orchestrator has no agents registered',
});
