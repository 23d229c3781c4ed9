// Deterministic session records in the shape nsed writes (src/session/model.ts).
const DAY = Date.UTC(2026, 0, 1);
const WORDS = 'the council weighed each proposal against the evidence and kept what held up under review'.split(' ');

const hex = (n, width) => (n >>> 0).toString(16).padStart(width, '0').slice(-width);
const iso = (ms) => new Date(ms).toISOString();

function text(seed, words) {
  const out = [];
  for (let i = 0; i < words; i++) out.push(WORDS[(seed * 7 + i * 13) % WORDS.length]);
  return out.join(' ');
}

function rounds(seed) {
  return [1, 2, 3].map((round) => ({
    round,
    total_rounds: 3,
    progress: round / 3,
    scored: true,
    candidates: ['CortexA', 'CortexB', 'CortexC'].map((agent_id, k) => ({
      agent_id,
      score: ((seed + k * 17 + round) % 100) / 100,
      content_preview: text(seed + k, 24),
      thought_preview: text(seed + k + 1, 12),
      claims: [{ claim: text(seed + k + 2, 8), verdict: 'verified' }],
    })),
  }));
}

/**
 * Turn `k` of session `seed`: users ask, the council answers, one answer in five has rounds.
 * `verdictOf` (src/council/verdict.ts deriveVerdict): each answer records its verdict, as nsed has since
 * verdicts were kept (src/turn/record-turn.ts); without it, an answer of an older nsed.
 */
export function turn(seed, k, ts, verdictOf) {
  const user = k % 2 === 0;
  const t = {
    id: `t${hex(seed * 64 + k, 12)}`,
    role: user ? 'user' : 'assistant',
    kind: 'message',
    content: text(seed + k, user ? 20 : 80),
    status: 'complete',
    ts: iso(ts),
  };
  if (user) return t;
  Object.assign(t, {
    policy_id: 'nsed:deep',
    job_id: `job-${hex(seed, 8)}-${k}`,
    path: 'compat',
    finish_reason: 'stop',
  });
  if (seed % 5 === 0) t.rounds = rounds(seed + k);
  if (verdictOf) t.verdict = verdictOf({ rounds: t.rounds ?? [] });
  return t;
}

/** Session number `n` of a generated store, with `turns` turns a second apart (`verdictOf`: as turn()). */
export function session(n, turns, verdictOf) {
  const created = DAY + n * 60_000;
  return {
    version: 1,
    id: `${iso(created).slice(0, 10).replaceAll('-', '')}-${hex(n * 2654435761, 8)}`,
    title: text(n, 6),
    created: iso(created),
    updated: iso(created + turns * 1_000),
    active_policy: 'nsed:deep',
    orchestrator: 'http://127.0.0.1:8080',
    conversation_id: `thread-${hex(n, 8)}${hex(n * 31, 8)}${hex(n * 97, 8)}${hex(n * 131, 8)}`,
    turns: Array.from({ length: turns }, (_, k) => turn(n, k, created + k * 1_000, verdictOf)),
  };
}
