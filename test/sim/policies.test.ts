import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/protocol/canonical-json.js';
import { defaultPolicies, modelIds, resolvePolicy } from '../../src/sim/policies.js';

const registry = defaultPolicies();
const byName = (name: string) => registry.find((p) => p.name === name);

describe('model resolution (protocol §3.1.2)', () => {
  it.each([
    ['nsed:fast', 'fast', 1, 'deliberation'],
    ['nsed:deep', 'deep', 5, 'deliberation'],
    ['nsed:moderated', 'moderated', 1, 'moderator'],
    ['nsed:passthrough', 'passthrough', 1, 'passthrough'],
    ['nsed:*', 'balanced', 3, 'deliberation'],
    ['nsed:balanced', 'balanced', 3, 'deliberation'],
    ['nsed:mid:0v1', 'nsed:mid:0v1', 2, 'deliberation'],
  ])('%s resolves to the %s policy', (model, name, rounds, mode) => {
    const r = resolvePolicy(registry, model);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.policy.name).toBe(name);
    expect(r.policy.max_rounds).toBe(rounds);
    expect(r.policy.mode).toBe(mode);
  });

  it('registers balanced first so the wildcard deliberates', () => {
    expect(registry[0]?.name).toBe('balanced');
    expect(registry[0]?.tags).toEqual(['balanced']);
  });

  it('resolves a 64-hex policy id by exact content hash, in either case', () => {
    const deep = byName('deep');
    expect(deep?.policy_id).toMatch(/^[0-9a-f]{64}$/);
    const r = resolvePolicy(registry, `nsed:${deep?.policy_id ?? ''}`);
    expect(r.ok && r.policy.name).toBe('deep');
    const upper = resolvePolicy(registry, `nsed:${(deep?.policy_id ?? '').toUpperCase()}`);
    expect(upper.ok && upper.policy.name).toBe('deep');
  });

  it('computes policy_id as the sha256 of the canonical JSON of the config', () => {
    const fast = byName('fast');
    const config = { agents: fast?.agents, effort: 0.6, max_rounds: 1, tags: ['fast'] };
    expect(fast?.policy_id).toBe(createHash('sha256').update(canonicalJson(config)).digest('hex'));
  });

  it.each([
    ['nsed:nope', /no policy carries the tag or id 'nope'/],
    ['deep', /not found: no policy matches/],
    ['gpt-4o', /not found/],
    ['nsed:', /not found/],
    [`nsed:${'0'.repeat(64)}`, /not found/],
  ])('refuses %s with a not-found message', (model, message) => {
    const r = resolvePolicy(registry, model);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.message).toMatch(/^model '.*' not found: no policy/);
      expect(r.message).toMatch(message);
    }
  });

  it('lists nsed:* and one model per tag', () => {
    expect(modelIds(registry)).toEqual([
      'nsed:*',
      'nsed:balanced',
      'nsed:fast',
      'nsed:deep',
      'nsed:moderated',
      'nsed:passthrough',
      'nsed:mid:0v1',
    ]);
  });
});
