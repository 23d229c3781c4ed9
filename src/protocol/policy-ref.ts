import { usageError } from '../errors.js';

/** "The policy is the model": only this leading prefix marks an NSED model string. */
export const MODEL_PREFIX = 'nsed:';

/**
 * Turns a user's `-p` value into the `model` string sent on the wire: `deep` → `nsed:deep`,
 * `*` → `nsed:*`, a 64-hex policy id → `nsed:<id>`, and `nsed:…` as given. Tags may contain
 * `:` themselves (`mid:0v1` → `nsed:mid:0v1`), so nothing but the leading prefix is inspected.
 */
export function toModel(policy: string): string {
  const value = policy.trim();
  if (value === '') throw usageError('the policy is empty', 'pass -p with a tag such as deep, a policy id, or *');
  if (value.startsWith(MODEL_PREFIX)) {
    if (value.length === MODEL_PREFIX.length) throw usageError(`the policy '${value}' names nothing after 'nsed:'`);
    return value;
  }
  return MODEL_PREFIX + value;
}

/** The tag, `*` or policy id inside a model string; undefined when it is not an NSED model. */
export function fromModel(model: string): string | undefined {
  return model.startsWith(MODEL_PREFIX) ? model.slice(MODEL_PREFIX.length) : undefined;
}

/**
 * The listed policy a model string names: `*` is the first (docs/protocol.md §3.1.2), else the
 * one whose id, name or tag it is; undefined when none matches.
 */
export function matchPolicy<P extends { policy_id: string; name: string; tags: readonly string[] }>(
  policies: readonly P[],
  model: string,
): P | undefined {
  const ref = fromModel(model) ?? model;
  if (ref === '*') return policies[0];
  return policies.find((p) => p.policy_id === ref || p.name === ref || p.name === model || p.tags.includes(ref));
}
