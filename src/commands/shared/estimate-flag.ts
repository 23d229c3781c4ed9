import type { Context } from '../../run/context.js';
import type { TurnOptions } from '../../turn/turn-options.js';
import type { ParsedArgv } from '../command.js';
import { flagValues, type FlagDef } from './flag-def.js';

/**
 * `--estimate` of ask, continue, fork and batch: what the turn (each item) is expected to cost,
 * from `GET /agents` and the policy's rounds, with nothing sent (docs/ci.md "What a council costs").
 */
export const ESTIMATE_FLAG = {
  name: 'estimate',
  type: 'boolean',
  describe: "print what it is expected to cost (/agents' prices times the rounds), as a range, and send nothing",
} as const satisfies FlagDef;

export const parseEstimate = (argv: ParsedArgv): boolean => flagValues([ESTIMATE_FLAG], argv).estimate === true;

/**
 * Prints the estimate of the turn `turn` would run under `model` on `orchestrator`: text, or one
 * object with -o json or ndjson (docs/ndjson.md "Estimate"). Only GETs are sent; exit 0, also
 * when the cost is unknown (the estimate then says so and why).
 */
export async function printTurnEstimate(
  ctx: Context,
  orchestrator: string | undefined,
  model: string,
  turn: TurnOptions,
): Promise<number> {
  const [{ readEstimateSources, estimateOf }, lines, { toJsonLine }] = await Promise.all([
    import('../../turn/estimate-turn.js'),
    import('../../output/estimate-lines.js'),
    import('../../output/ndjson.js'),
  ]);
  const conn = await ctx.connect(orchestrator);
  try {
    // The agents' ids are the server's: a token it echoes in one is shown as *** (docs/reliability.md #89).
    const estimate = ctx.secrets.redactValue(
      estimateOf(ctx, model, turn, await readEstimateSources(conn.client, ctx.signal)),
    );
    ctx.io.stdout.write(machine(ctx) ? toJsonLine(estimate) : lines.estimateText(estimate));
    return 0;
  } finally {
    await conn.close();
  }
}

/** -o json and -o ndjson print the estimate as one object; text and final as lines. */
export const machine = (ctx: Context): boolean => {
  const output = ctx.globals.settings.output.value;
  return output === 'json' || output === 'ndjson';
};
