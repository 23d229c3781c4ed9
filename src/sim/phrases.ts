import type { Verdict } from '../protocol/wire.js';
import type { Angle } from './agents.js';

/** Sentence templates per angle; `{topic}`, `{t1}`, `{t2}`, `{t3}` come from the question. */
export const OPENERS: Record<Angle, readonly string[]> = {
  simplicity: [
    'Start with the simplest version of {topic} that can work: one component, one owner, and no moving parts you cannot explain in a sentence.',
    'Keep {topic} boring: a single well-understood path beats a clever one and leaves room to grow later.',
    'Resist building a framework around {topic}; a small, direct solution covers the stated need and is easy to replace.',
  ],
  performance: [
    'Optimise {topic} for the hot path first: measure where the time goes, then remove round trips before tuning anything else.',
    'Treat {topic} as a latency problem: keep the common case in memory and push slow work off the request path.',
    'Design {topic} around throughput: batch what can be batched and keep locks off the read side.',
  ],
  safety: [
    'Make {topic} fail safe: validate every input at the boundary and decide up front what happens when a dependency is down.',
    'Assume {topic} will meet bad data and partial failures; being correct under those conditions matters more than speed.',
    'Guard {topic} against its failure modes first: timeouts, bounded retries, and state that survives a restart.',
  ],
  cost: [
    'Size {topic} for the load you have, not the load you imagine; idle capacity is the most common waste.',
    'Price {topic} before building it: the cheapest component is the one you do not run.',
  ],
  maintainability: [
    'Shape {topic} so the next person can change it safely: clear seams, small modules, and tests that read like a specification.',
    'Optimise {topic} for change: isolate the parts most likely to move behind one narrow interface.',
  ],
  observability: [
    'Make {topic} observable from day one: structured logs, one latency histogram per boundary, and a health check that means something.',
    'Instrument {topic} before tuning it; without numbers every argument about it is a guess.',
  ],
};

export const DETAILS: Record<Angle, readonly string[]> = {
  simplicity: [
    'Handle {t1} with the standard library before reaching for a dependency.',
    'Model {t1} and {t2} as plain data rather than a class hierarchy.',
    'One configuration knob for {t1} is enough until someone asks for a second.',
  ],
  performance: [
    'Cache {t1} lookups so they stay O(1) on the hot path.',
    'Batch {t2} updates so each request costs one round trip.',
    'Precompute {t1} where it is read far more often than written.',
  ],
  safety: [
    'Bound {t1} with explicit limits so one bad request cannot exhaust it.',
    'Write {t2} atomically (temp file, fsync, rename) so a crash leaves the old or the new state, never half.',
    'Reject malformed {t1} early, with a message that names the offending field.',
  ],
  cost: [
    'Share {t1} infrastructure across tenants instead of provisioning per user.',
    'Scale {t2} to zero when nobody is using it.',
  ],
  maintainability: [
    'Keep {t1} behind an interface with one implementation and a fake for tests.',
    'Name {t2} after what it does, not after how it is built.',
  ],
  observability: [
    'Emit one event per {t1} state change with a correlation id.',
    'Alert on {t2} error rates, not on single failures.',
  ],
};

export const TRADEOFFS: Record<Angle, readonly string[]> = {
  simplicity: [
    'The cost is some headroom, which measurements can buy back later.',
    'It will not cover every edge of {t3}, and that is acceptable at this stage.',
  ],
  performance: [
    'The price is more code around {t3}, so keep the fast path small and well tested.',
    'Correctness of {t3} must not be traded for speed; benchmark both together.',
  ],
  safety: [
    'It costs a little latency on {t3}, which is cheap compared with an outage.',
    'Some requests touching {t3} will be refused; say why in the error.',
  ],
  cost: ['Savings on {t3} should never remove a safety margin.'],
  maintainability: ['The extra seam around {t3} pays for itself at the second change.'],
  observability: ['Metrics on {t3} cost little and settle arguments quickly.'],
};

export const THOUGHTS: Record<Angle, readonly string[]> = {
  simplicity: [
    'Weighed {t1} against {t2}; most of the risk here is accidental complexity, so fewer parts wins.',
    'The question does not demand scale yet, so the smallest design that answers it is the right start.',
  ],
  performance: [
    'Estimated the request path for {t1}; round trips dominate, so batching and caching matter most.',
    'Looked for the hot path in {topic}; it is reads of {t1}, so optimise those.',
  ],
  safety: [
    'Listed what can fail around {t1}: bad input, a crash mid-write, a slow dependency. Each needs an answer.',
    'Checked how {t2} behaves after a crash; a half-written state is the main risk.',
  ],
  cost: ['Compared running costs for {t1}; idle capacity dominates.'],
  maintainability: ['Asked which part of {topic} will change first; it is {t2}, so isolate it.'],
  observability: ['Asked how an operator would notice {t1} failing; today they would not.'],
};

export const CLAIMS: Record<Angle, readonly string[]> = {
  simplicity: [
    'a single code path for {t1} is easier to test',
    '{t2} needs no extra coordination',
    'the standard library covers {t1}',
    'one owner for {topic} avoids split decisions',
  ],
  performance: [
    '{t1} lookups stay O(1) on the hot path',
    'batching {t2} removes most round trips',
    'reads of {t1} need no lock',
    'p99 latency for {topic} stays under 50 ms',
  ],
  safety: [
    '{t1} fails closed on malformed input',
    '{t2} survives a crash mid-write',
    'retries around {t1} are bounded',
    'no secret reaches the logs of {t2}',
  ],
  cost: ['{t1} can share infrastructure', '{t2} can scale to zero'],
  maintainability: ['{t1} sits behind one interface', '{t2} can be replaced without touching callers'],
  observability: ['every {t1} state change is logged once', '{t2} errors are visible within a minute'],
};

/**
 * Claims any angle may add to a thorough proposal, beyond its three: with them and the extra
 * objections a candidate sometimes gathers up to 10 distinct claims, so the cap of 8 (worst
 * verdict wins, docs/protocol.md §4.4) really cuts.
 */
export const EXTRA_CLAIMS: readonly string[] = [
  '{t1} needs no schema change',
  'a rollback of {t2} takes minutes',
  '{t1} keeps working when {t2} is down',
  'the load on {t2} stays within one node',
  '{topic} can ship behind a flag',
];

/** Objections a second look sometimes raises, beside OBJECTIONS. */
export const EXTRA_OBJECTIONS: readonly string[] = [
  'skips the migration path for {t2}',
  'assumes {t1} is never retried',
  'has no owner for {t2} alerts',
  'leaves the cost of {t1} unmeasured',
];

export const OBJECTIONS: readonly string[] = [
  'ignores {t1} under concurrent writers',
  'underestimates the cost of {t2} at scale',
  'leaves {t1} without a timeout',
  'adds a dependency for {t2} that is not needed',
];

export const REASONS: Record<Verdict, readonly string[]> = {
  verified: ['consistent with the stated constraints', 'matches common practice for {t1}'],
  unverified: ['plausible but not demonstrated', 'needs a benchmark to confirm'],
  unknown: ['cannot be judged from the question alone'],
  contested: ['depends on the workload, which the question leaves open', 'other proposals argue the opposite'],
  wrong: ['contradicts how {t1} behaves under failure', 'the numbers do not add up'],
};

export const JUSTIFICATIONS: readonly string[] = [
  'Sound on {t1}, thinner on {t2}.',
  'Clear and actionable; the trade-off on {t3} is stated honestly.',
  'Reasonable, but the claim about {t2} needs evidence.',
  'Covers the main risk; could say more about {t1}.',
];

export const ANGLE_LABEL: Record<Angle, string> = {
  simplicity: 'Simplicity',
  performance: 'Performance',
  safety: 'Safety',
  cost: 'Cost',
  maintainability: 'Maintainability',
  observability: 'Observability',
};
