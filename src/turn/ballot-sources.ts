import type { NsedClient } from '../api/index.js';
import type { NsedEvent } from '../events/events.js';
import type { Transcript } from '../events/transcript.js';
import { deriveVerdict, type CouncilVerdict } from '../council/verdict.js';
import { NsedError } from '../errors.js';
import { budgetOf, callsOfDetails, parseDetails, type CouncilDetails, type TokenUsage } from '../protocol/details.js';
import { UNKNOWN_USAGE, usageOf, type Prices, type Usage } from '../council/usage.js';
import type { AgentInfo, NsedRound } from '../protocol/wire.js';
import { oneLine } from '../terminal/sanitize.js';

/**
 * What the verdict reads besides the turn's own events: the ballots of `GET /deliberation/{id}/details`
 * and the council's agents of `GET /agents` (docs/ndjson.md §4b). Both are asked once, after the
 * answer (the agents before the job when `--agents` was checked, docs/reliability.md #275), each
 * bounded by SIDE_READ_MS; a server that has neither (404, an error, a wrong shape, a stall)
 * leaves them null, and the verdict then says "not reported" (docs/reliability.md #221).
 */
export const SIDE_READ_MS = 10_000;

export interface BallotSources {
  details: CouncilDetails | null;
  agents: readonly AgentInfo[] | null;
}

/** The ballots, the council's agents and what the turn cost, read once the turn ended. */
export interface TurnEndSources extends BallotSources {
  usage: Usage;
}

const bounded = (signal: AbortSignal): AbortSignal => AbortSignal.any([signal, AbortSignal.timeout(SIDE_READ_MS)]);

async function orNull<T>(read: () => Promise<T>): Promise<T | null> {
  try {
    return await read();
  } catch {
    return null;
  }
}

/**
 * The agents `/agents` lists, or null when it lists none (a server without the route, or one that
 * keeps its registry to itself): then names cannot be checked and diversity is unknown.
 */
export async function listedAgents(client: NsedClient, signal: AbortSignal): Promise<AgentInfo[] | null> {
  const listed = await orNull(() => client.agents({ signal: bounded(signal) }));
  return listed === null || listed.length === 0 ? null : listed;
}

/**
 * One `/agents` listing shared by the turns of one client (`nsed batch`: the same listing for every
 * item, docs/reliability.md #270): read once, bounded and untrusted as each turn's own read, and
 * read again by a turn whose council names an agent it does not list. A read that gives nothing is
 * not kept: the next turn reads for itself, as it would have without sharing.
 */
const sharedListings = new WeakMap<NsedClient, { listing: Promise<AgentInfo[] | null> | undefined }>();

/** The turns ending on `client` from now on share one `/agents` listing (see sharedListings). */
export function shareAgentListing(client: NsedClient): void {
  if (!sharedListings.has(client)) sharedListings.set(client, { listing: undefined });
}

/**
 * The listing a turn's end reads on a client that shares one: the shared listing when it lists every
 * agent of the council (`ids`), else a fresh read, which the sharing turns then reuse.
 */
async function sharedListing(
  client: NsedClient,
  ids: ReadonlySet<string>,
  signal: AbortSignal,
): Promise<AgentInfo[] | null> {
  const shared = sharedListings.get(client) ?? { listing: undefined };
  const reused = shared.listing;
  if (reused !== undefined) {
    const listed = await reused;
    if (listed !== null && covers(listed, ids)) return listed;
  }
  // The first read, or one that gave nothing, or one older than an agent of this council: read
  // again and share that (unless another turn shared a newer read meanwhile).
  const fresh = listedAgents(client, signal);
  if (shared.listing === reused) shared.listing = fresh;
  const listed = await fresh;
  if (listed === null && shared.listing === fresh) shared.listing = undefined;
  return listed;
}

const covers = (listed: readonly AgentInfo[], ids: ReadonlySet<string>): boolean => {
  const known = new Set(listed.map((a) => a.agent_id));
  for (const id of ids) if (!known.has(id)) return false;
  return true;
};

/**
 * `--agents` names checked before anything is sent: a name the server does not list is exit 2,
 * naming the unknown and listing the known, instead of a council that fails late or silently
 * shrinks. Returns the listing for the verdict's diversity (null: the server lists none, no check).
 */
export async function checkAgentNames(
  client: NsedClient,
  names: readonly string[],
  signal: AbortSignal,
): Promise<AgentInfo[] | null> {
  const listed = await listedAgents(client, signal);
  if (listed === null) return null;
  const known = new Set(listed.map((a) => a.agent_id));
  const unknown = names.filter((n) => !known.has(n));
  if (unknown.length > 0) {
    const shown = (xs: readonly string[]): string => xs.map((x) => oneLine(x, 60)).join(', ');
    // Unsent: the turn is forgotten, so no session is left that never asked anything.
    throw new NsedError(
      'usage',
      `unknown agent${unknown.length === 1 ? '' : 's'} ${shown(unknown)}: the orchestrator lists ${shown([...known].slice(0, 20))}${known.size > 20 ? ', …' : ''}`,
      { hint: "'nsed agents' lists them", unsent: true },
    );
  }
  return listed;
}

/** `/details` read and parsed, bounded; null when the server has none to give. */
export async function readDetails(
  client: NsedClient,
  jobId: string,
  signal: AbortSignal,
): Promise<CouncilDetails | null> {
  return parseDetails(await orNull(() => client.details(jobId, { signal: bounded(signal) })));
}

/**
 * The listing `--agents` names were checked against (checkAgentNames) serves the turn's end too
 * (docs/reliability.md #275): null, the server listed none, is not asked again; a listing is read
 * again only when it lacks an agent of the council (`ids`), as a batch's shared listing is
 * (sharedListing).
 */
function checkedListing(
  client: NsedClient,
  checked: readonly AgentInfo[] | null,
  ids: ReadonlySet<string>,
  signal: AbortSignal,
): Promise<readonly AgentInfo[] | null> {
  return checked === null || covers(checked, ids) ? Promise.resolve(checked) : listedAgents(client, signal);
}

/**
 * The ballots, the council's agents and the usage of a job that ended (`checked`, the listing read
 * before the job started, see checkedListing; `reported`, the usage the stream carried):
 * `/details`, `/agents` unless read already and, when they do not tell the whole usage, `/budget`,
 * each bounded. The usage is the job's reported totals, else its calls' (dollars reported, else
 * tokens at the listed prices), else `/budget`'s (docs/ndjson.md "Usage").
 */
export async function turnEndSources(
  client: NsedClient,
  jobId: string | undefined,
  rounds: readonly NsedRound[],
  reported: Usage | null,
  signal: AbortSignal,
  checked?: readonly AgentInfo[] | null,
): Promise<TurnEndSources> {
  if (jobId === undefined) return { details: null, agents: null, usage: reported ?? UNKNOWN_USAGE };
  const read = readDetails(client, jobId, signal);
  const shared = sharedListings.has(client);
  // A listing read before the end is checked against the council, which the details name.
  const listing: Promise<readonly AgentInfo[] | null> = shared
    ? read.then((d) => sharedListing(client, councilIds(d, rounds), signal))
    : checked !== undefined
      ? read.then((d) => checkedListing(client, checked, councilIds(d, rounds), signal))
      : listedAgents(client, signal);
  const readBudget = () => orNull(() => client.budget(jobId, { signal: bounded(signal) }));
  // `/budget` ranks last (usageOf): never read when the stream reported the whole usage. A single
  // turn reads it beside the others, as its end waits for the slowest; a batch's item only when the
  // details did not tell it all (docs/reliability.md #270).
  const early = whole(reported) || shared ? undefined : readBudget();
  const [details, listed] = await Promise.all([read, listing]);
  const sources = {
    totals: totalsOf(reported),
    calls: details === null ? null : callsOfDetails(details),
    prices: pricesOf(listed),
  };
  let usage = usageOf(sources);
  if (!whole(usage)) usage = usageOf({ ...sources, budget: budgetOf(await (early ?? readBudget())) });
  const agents = listed === null ? null : councilOf(listed, details, rounds);
  return { details, agents, usage };
}

/**
 * The council's verdict once its job answered (`checked`, the listing `--agents` was checked
 * against, see checkedListing): the end's sources read (the same reads for the run that owns the
 * job and for a watcher, so both see one verdict and one cost), the usage emitted as an event, and
 * the verdict derived from the transcript it updated.
 */
export async function verdictAtEnd(
  turn: { readonly transcript: Transcript; emit(e: NsedEvent): void },
  client: NsedClient,
  jobId: string | undefined,
  signal: AbortSignal,
  checked?: readonly AgentInfo[] | null,
): Promise<{ verdict: CouncilVerdict; usage: Usage }> {
  const { rounds, usage: reported } = turn.transcript;
  const ended = await turnEndSources(client, jobId, rounds, reported, signal, checked);
  turn.emit({ type: 'usage', usage: ended.usage });
  return { verdict: deriveVerdict({ ...turn.transcript, ...ended }), usage: ended.usage };
}

/** A usage with its cost and both token counts: `/budget`, which ranks last, would change none of them. */
const whole = (u: Usage | null): boolean =>
  u !== null &&
  u.cost_source !== 'unknown' &&
  Number.isFinite(u.cost_usd) &&
  Number.isFinite(u.input_tokens) &&
  Number.isFinite(u.output_tokens);

/** A reported usage back in the `token_usage` shape, so it ranks first as the job's totals. */
const totalsOf = (u: Usage | null): TokenUsage | null =>
  u === null
    ? null
    : {
        input_tokens: u.input_tokens,
        output_tokens: u.output_tokens,
        reported_cost_usd: u.cost_source === 'reported' ? u.cost_usd : null,
      };

/** Each listed agent's per-token prices, where `/agents` lists both. */
function pricesOf(agents: readonly AgentInfo[] | null): Map<string, Prices> | null {
  if (agents === null) return null;
  const out = new Map<string, Prices>();
  for (const a of agents)
    if (a.input_price_per_mtok !== undefined && a.output_price_per_mtok !== undefined)
      out.set(a.agent_id, { input: a.input_price_per_mtok, output: a.output_price_per_mtok });
  return out.size === 0 ? null : out;
}

/** The agents that took part: authors and evaluators of the details, else the candidates of the rounds. */
function councilIds(details: CouncilDetails | null, rounds: readonly NsedRound[]): Set<string> {
  const ids = new Set<string>();
  for (const e of details?.entries ?? []) {
    ids.add(e.author);
    for (const x of e.evaluations) ids.add(x.evaluator);
  }
  for (const r of rounds) for (const c of r.candidates) ids.add(c.agent_id);
  return ids;
}

/** The listed agents that took part (councilIds). */
function councilOf(
  agents: readonly AgentInfo[],
  details: CouncilDetails | null,
  rounds: readonly NsedRound[],
): AgentInfo[] | null {
  const ids = councilIds(details, rounds);
  const council = agents.filter((a) => ids.has(a.agent_id));
  return council.length === 0 ? null : council;
}
