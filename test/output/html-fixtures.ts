// Sessions for the HTML report: a deliberation of any size (rounds x candidates) with claims of
// every verdict, an injection, a tool call and a failed turn, and the hostile texts a server
// could send in every field the page shows. The verdict is derived by the real deriveVerdict.
import type { Candidate, Claim, NsedRound } from '../../src/protocol/wire.js';
import type { Session, Turn } from '../../src/session/model.js';
import { deriveVerdict } from '../../src/council/verdict.js';

const TS = '2026-12-01T09:00:00.000Z';
const VERDICTS: Claim['verdict'][] = ['verified', 'contested', 'unverified', 'wrong'];

/** Payloads that would run script or fetch something if any reached the page as markup. */
export const HOSTILE = {
  script: '<script>window.__pwned = 1; console.error("pwned")</script>',
  handler: '<img src="x" onerror="window.__pwned = 2; console.error(\'pwned\')">',
  jsLink: '[click me](javascript:window.__pwned=3)',
  svg: '<svg><script>window.__pwned = 4</script><circle onload="window.__pwned = 5"/></svg>',
  breakout: '</details></td></tr></table><script>window.__pwned = 6</script><details open>',
  image: '![tracker](http://127.0.0.1:9/pixel.png)',
  style: '<style>body{background:url(http://127.0.0.1:9/bg.png)}</style>',
  attr: '" onmouseover="window.__pwned = 7" x="',
};

const hostileText = Object.values(HOSTILE).join('\n\n');

export interface DeliberationOptions {
  rounds: number;
  candidates: number;
  /** Put the hostile payloads in the answer, a proposal, a claim, a reason, a tool result and an injection. */
  hostile?: boolean;
}

const agentName = (i: number): string => `Cortex${String.fromCharCode(65 + (i % 26))}${i >= 26 ? i : ''}`;

function proposal(agent: string, round: number, hostile: boolean): string {
  const body =
    `${agent} proposes, in round ${round}: keep the common case fast, move slow work out of the way, ` +
    'measure before and after, and keep a rollback path for every step of the migration.\n\n' +
    '- step one: add the index concurrently\n- step two: backfill in batches of 10,000 rows\n' +
    '- step three: switch reads, then writes, behind a flag';
  return hostile ? `${HOSTILE.breakout}\n${body}\n${HOSTILE.script}` : body;
}

function candidateOf(i: number, round: number, rounds: number, hostile: boolean): Candidate {
  const agent = agentName(i);
  // Agent 0 climbs to the top; the others settle below it, each on its own line.
  const s = Math.min(0.97, 0.35 + (0.55 * round) / rounds - i * 0.04 + ((round * (i + 3)) % 3) * 0.01);
  const claims: Claim[] = [0, 1, 2].map((k) => ({
    claim: `${agent} claim ${k + 1} of round ${round}: the backfill holds ${(k + 1) * 1000} rows per batch`,
    verdict: VERDICTS[(i + k + round) % VERDICTS.length] ?? 'unknown',
    reason: `checked against the plan (${agent}, ${k})`,
  }));
  if (hostile && i === 0) {
    claims.push({ claim: HOSTILE.script, verdict: 'wrong', reason: HOSTILE.handler });
  }
  return {
    agent_id: hostile && i === 1 ? `${agent}${HOSTILE.attr}` : agent,
    score: Math.max(0.05, Number(s.toFixed(3))),
    content_preview: proposal(agent, round, hostile && i === 0),
    thought_preview: '',
    claims,
  };
}

export function roundsOf(o: DeliberationOptions): NsedRound[] {
  return Array.from({ length: o.rounds }, (_, r) => ({
    round: r + 1,
    total_rounds: o.rounds,
    progress: (r + 1) / o.rounds,
    scored: true,
    convergence: Number(Math.min(0.95, 0.3 + (0.6 * (r + 1)) / o.rounds).toFixed(3)),
    candidates: Array.from({ length: o.candidates }, (_, i) => candidateOf(i, r + 1, o.rounds, o.hostile === true)),
  }));
}

/**
 * A session: a question whose turn failed, the question again, an injection that landed in
 * round 2 (or 1), and the answer with its rounds, tool call, verdict and gate result.
 */
export function deliberationSession(o: DeliberationOptions): Session {
  const hostile = o.hostile === true;
  const rounds = roundsOf(o);
  const answer =
    '## The plan is safe\n\nWith a **rollback step** and the backfill in batches:\n\n```sh\nmigrate --dry-run\n```\n\n' +
    '| step | risk |\n|---|---|\n| index | low |\n| backfill | medium |\n\nSee [the runbook](https://example.invalid/runbook).\n' +
    (hostile ? `\n${hostileText}\n` : '');
  const turns: Turn[] = [
    { id: 't0b', role: 'user', kind: 'message', content: 'Is the plan safe at all?', status: 'complete', ts: TS },
    {
      id: 't0c',
      role: 'assistant',
      kind: 'message',
      content: '',
      status: 'failed',
      ts: TS,
      policy_id: 'nsed:deep',
      job_id: 'job-41',
      error: 'the deliberation failed at round 2: agent CortexB timed out',
    },
    {
      id: 't1',
      role: 'user',
      kind: 'message',
      content: hostile ? `Is it safe? ${HOSTILE.script}` : 'Is the migration plan safe?',
      status: 'complete',
      ts: TS,
    },
    {
      id: 't2',
      role: 'user',
      kind: 'injection',
      content: hostile ? `mind the rollback ${HOSTILE.handler}` : 'mind the rollback',
      status: 'complete',
      ts: TS,
      job_id: 'job-42',
      round: Math.min(2, o.rounds),
      sequence: 1,
    },
    {
      id: 't3',
      role: 'assistant',
      kind: 'message',
      content: answer,
      status: 'complete',
      ts: TS,
      policy_id: 'nsed:deep',
      job_id: 'job-42',
      path: 'compat',
      rounds,
      tool_calls: [
        {
          id: 'c1',
          name: 'calculator',
          arguments: '{"expression":"10000*3"}',
          result: hostile ? `30000 ${HOSTILE.svg}` : '30000',
          status: 'ok',
          exit_code: 0,
          duration_ms: 4,
        },
      ],
      verdict: deriveVerdict({ rounds, reasoning: null }),
      gate: {
        status: 'fail',
        checks: [
          { name: 'min-convergence', expected: 0.8, actual: 0.9, status: 'pass' },
          { name: 'max-wrong', expected: 0, actual: 1, status: 'fail' },
        ],
      },
    },
  ];
  return {
    version: 1,
    id: '20261201-html',
    title: hostile ? `migration ${HOSTILE.script}` : 'migration plan',
    created: TS,
    updated: TS,
    active_policy: 'nsed:deep',
    orchestrator: 'http://127.0.0.1:9',
    conversation_id: 'conv',
    council: { agents: Array.from({ length: o.candidates }, (_, i) => agentName(i)), rounds: o.rounds },
    turns,
  };
}
