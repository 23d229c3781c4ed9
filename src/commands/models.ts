import type { ModelInfo } from '../protocol/wire.js';
import { listingCommand } from './shared/listing-command.js';

/** `nsed models`: the model names this token may send (`GET /v1/models`). */
export const models = listingCommand<ModelInfo>({
  command: 'models',
  describe: 'list the model names the orchestrator accepts (GET /v1/models)',
  examples: [
    ['nsed models', 'nsed:<tag> for every policy, and any other model the server offers'],
    ["nsed models -o json | jq -r '.[].id'", 'the names alone'],
  ],
  ask: (client, signal) => client.models({ signal }),
  columns: [
    { header: 'MODEL', cell: (m) => m.id, max: 80 },
    { header: 'OWNED BY', cell: (m) => m.owned_by ?? '' },
  ],
  none: 'the orchestrator lists no models',
});
