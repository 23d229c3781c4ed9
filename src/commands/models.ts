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
    const conn = await ctx.connect();
    let list: ModelInfo[];
    try {
      list = await conn.client.models({ signal: ctx.signal });
    } finally {
      await conn.close();
    }
    const { renderListing, listingFormat } = await import('../output/listing.js');
    const format = listingFormat(ctx.globals.output, ctx.io.stdoutIsTTY);
    if (list.length === 0 && format !== 'json' && !ctx.io.quiet)
      ctx.io.stderr.write('the orchestrator lists no models\n');
    await (
      await import('../output/session-write.js')
    ).writeStdout(
      ctx.io,
      renderListing(list, MODEL_COLUMNS, format, (m) => m),
    );
    return 0;
  },
};

const MODEL_COLUMNS = [
  { header: 'MODEL', cell: (m: ModelInfo) => m.id, max: 80 },
  { header: 'OWNED BY', cell: (m: ModelInfo) => m.owned_by ?? '' },
];
