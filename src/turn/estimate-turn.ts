import type { NsedClient } from '../api/index.js';
import type { Context } from '../run/context.js';
import { estimateTurn, type EstimateInput, type TurnEstimate } from '../council/estimate.js';
import { fromModel, matchPolicy } from '../protocol/policy-ref.js';
import type { AgentInfo, PolicyInfo } from '../protocol/wire.js';
import { oneLine } from '../terminal/sanitize.js';
import { listedAgents, SIDE_READ_MS } from './ballot-sources.js';
import { councilChoice } from './turn-options.js';
import type { TurnOptions } from './turn-options.js';

/**
 * What `--estimate` reads (docs/ci.md "What a council costs"): `GET /agents` for the prices and
 * `GET /policies` for a policy's rounds and council, each once, each bounded; a read that fails
 * leaves null, and the estimate says what it could not know. Nothing is sent: only GETs.
 */
export interface EstimateSources {
  agents: readonly AgentInfo[] | null;
  policies: readonly PolicyInfo[] | null;
}

export async function readEstimateSources(client: NsedClient, signal: AbortSignal): Promise<EstimateSources> {
  const [agents, policies] = await Promise.all([
    listedAgents(client, signal),
    client
      .policies({ signal: AbortSignal.any([signal, AbortSignal.timeout(SIDE_READ_MS)]) })
      .catch((): PolicyInfo[] | null => null),
  ]);
  return { agents, policies };
}

/**
 * The rounds a native request leaves to the server when nsed sends none (`--agents` without
 * `--rounds`): the reference client's default (docs/protocol.md §3.3.1), and the simulator's.
 */
export const SERVER_DEFAULT_ROUNDS = 3;

/** A turn's estimate, with the model string it would send and the path it would take. */
export interface TurnEstimateOf extends TurnEstimate {
  policy: string;
  path: 'compat' | 'native';
}

/**
 * The estimate of the turn `opts` would run under `model` (the session's active policy or model):
 * its council and rounds chosen as execute-turn chooses them (councilChoice), the policy's own
 * where no flag names them.
 */
export function estimateOf(ctx: Context, model: string, opts: TurnOptions, sources: EstimateSources): TurnEstimateOf {
  const { agents, rounds } = councilChoice(opts, ctx.globals.settings);
  const path = agents !== undefined || rounds !== undefined ? 'native' : 'compat';
  const shown = oneLine(model, 80);
  const input = ((): EstimateInput => {
    const base = { listing: sources.agents };
    if (fromModel(model) === undefined && agents === undefined)
      return {
        ...base,
        council: null,
        councilFrom: `'${shown}' is a model sent as given (-m), not a policy: nsed knows no council for it`,
        maxRounds: rounds ?? null,
        roundsFrom: rounds === undefined ? 'a plain model runs no rounds nsed can count' : 'the rounds asked for',
      };
    const policy = agents === undefined && sources.policies !== null ? matchPolicy(sources.policies, model) : undefined;
    const policyName = policy === undefined ? '' : oneLine(policy.name, 60);
    const council = ((): Pick<EstimateInput, 'council' | 'councilFrom'> => {
      if (agents !== undefined) return { council: agents, councilFrom: 'named for this turn' };
      if (sources.policies === null)
        return { council: null, councilFrom: 'GET /policies could not be read, so the policy is not known' };
      if (policy === undefined) return { council: null, councilFrom: `no policy in GET /policies matches '${shown}'` };
      if (policy.agents === undefined)
        return {
          council: null,
          councilFrom: `GET /policies does not name policy ${policyName}'s agents; --agents A,B names a council to estimate`,
        };
      return { council: policy.agents, councilFrom: `policy ${policyName}` };
    })();
    const round = ((): Pick<EstimateInput, 'maxRounds' | 'roundsFrom'> => {
      if (rounds !== undefined) return { maxRounds: rounds, roundsFrom: 'the rounds named for this turn' };
      if (agents !== undefined)
        return {
          maxRounds: SERVER_DEFAULT_ROUNDS,
          roundsFrom: "no rounds are sent, and the server's default is taken to be the reference client's",
        };
      if (policy === undefined) return { maxRounds: null, roundsFrom: council.councilFrom };
      return { maxRounds: policy.max_rounds, roundsFrom: `policy ${policyName}'s max_rounds` };
    })();
    return { ...base, ...council, ...round };
  })();
  return { policy: model, path, ...estimateTurn(input) };
}
