import { createHash } from 'node:crypto';
import { canonicalJson } from '../protocol/canonical-json.js';
import { fromModel } from '../protocol/policy-ref.js';
import type { PolicyInfo } from '../protocol/wire.js';
import { DEFAULT_COUNCIL } from './agents.js';
import { quoted } from './quote.js';

export type PolicyMode = 'deliberation' | 'passthrough' | 'moderator';

export interface SimPolicy {
  policy_id: string;
  name: string;
  tags: string[];
  max_rounds: number;
  effort: number;
  mode: PolicyMode;
  agents: string[];
}

function policy(
  name: string,
  tags: string[],
  maxRounds: number,
  mode: PolicyMode,
  agents: readonly string[],
): SimPolicy {
  // `mode` joins the hash only when it is not the default, so deliberation ids stay stable (docs/protocol.md §3.15).
  const config = {
    agents: [...agents],
    effort: 0.6,
    max_rounds: maxRounds,
    tags,
    mode: mode === 'deliberation' ? undefined : mode,
  };
  const policyId = createHash('sha256').update(canonicalJson(config)).digest('hex');
  return { policy_id: policyId, name, tags, max_rounds: maxRounds, effort: 0.6, mode, agents: [...agents] };
}

/** The registry in its fixed order: `balanced` first, so `nsed:*` deliberates. */
export function defaultPolicies(): SimPolicy[] {
  return [
    policy('balanced', ['balanced'], 3, 'deliberation', DEFAULT_COUNCIL),
    policy('fast', ['fast'], 1, 'deliberation', DEFAULT_COUNCIL),
    policy('deep', ['deep'], 5, 'deliberation', DEFAULT_COUNCIL),
    policy('moderated', ['moderated'], 1, 'moderator', ['CortexE']),
    policy('passthrough', ['passthrough'], 1, 'passthrough', ['CortexA']),
    policy('nsed:mid:0v1', ['mid:0v1'], 2, 'deliberation', DEFAULT_COUNCIL),
  ];
}

export type Resolution = { ok: true; policy: SimPolicy } | { ok: false; message: string };

const HEX64 = /^[0-9a-fA-F]{64}$/;

/**
 * Model resolution of docs/protocol.md §3.1.2: `nsed:*` is the first policy, a 64-hex value is a
 * content-hash match, anything else after the prefix is a tag (tags may contain `:`).
 */
export function resolvePolicy(registry: readonly SimPolicy[], model: unknown): Resolution {
  const shown = typeof model === 'string' ? model : (JSON.stringify(model) ?? 'undefined');
  const rest = typeof model === 'string' ? fromModel(model) : undefined;
  if (rest === undefined || rest === '') {
    return {
      ok: false,
      message: `model ${quoted(shown)} not found: no policy matches; models are nsed:<tag>, nsed:* or nsed:<policy_id>`,
    };
  }
  if (rest === '*') {
    const first = registry[0];
    return first
      ? { ok: true, policy: first }
      : { ok: false, message: `model ${quoted(shown)} not found: no policy is registered` };
  }
  if (HEX64.test(rest)) {
    const byId = registry.find((p) => p.policy_id === rest.toLowerCase());
    if (byId) return { ok: true, policy: byId };
  }
  const byTag = registry.find((p) => p.tags.includes(rest));
  if (byTag) return { ok: true, policy: byTag };
  return { ok: false, message: `model ${quoted(shown)} not found: no policy carries the tag or id ${quoted(rest)}` };
}

/** A policy as `GET /policies` lists it; `council`: with its agents (the profile's `policyCouncil`). */
export function policyInfo(p: SimPolicy, council = false): PolicyInfo {
  return {
    ...(council ? { agents: [...p.agents] } : {}),
    policy_id: p.policy_id,
    name: p.name,
    tags: [...p.tags],
    max_rounds: p.max_rounds,
    effort: p.effort,
    is_role_based: false,
    mode: p.mode,
    sla: { job_timeout_secs: 1200 },
  };
}

/** `GET /v1/models`: `nsed:*` and one id per distinct tag, in registry order. */
export function modelIds(registry: readonly SimPolicy[]): string[] {
  const ids = ['nsed:*'];
  for (const p of registry) {
    for (const t of p.tags) if (!ids.includes(`nsed:${t}`)) ids.push(`nsed:${t}`);
  }
  return ids;
}
