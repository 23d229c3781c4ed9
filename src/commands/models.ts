import type { ModelInfo } from '../protocol/wire.js';
import type { CommandDef } from './command.js';

/** `nsed models`: the model names this token may send (`GET /v1/models`). */
export const models: CommandDef<Record<string, never>> = {
  command: 'models',
  describe: 'list the model names the orchestrator accepts (GET /v1/models)',
  examples: [
    ['nsed models', 'nsed:<tag> for every policy, and any other model the server offers'],
    ["nsed models -o json | jq -r '.[].id'", 'the names alone'],
  ],
  parse: () => ({}),
  run: async (_opts, ctx) => {
    const { fetchListing, printListing } = await import('./shared/listing.js');
    const { items } = await fetchListing(ctx, (client, signal) => client.models({ signal }));
    await printListing(ctx, items, MODEL_COLUMNS, 'the orchestrator lists no models');
    return 0;
  },
};

const MODEL_COLUMNS = [
  { header: 'MODEL', cell: (m: ModelInfo) => m.id, max: 80 },
  { header: 'OWNED BY', cell: (m: ModelInfo) => m.owned_by ?? '' },
];
