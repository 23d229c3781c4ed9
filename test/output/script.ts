import type { NsedEvent } from '../../src/events/events.js';
import type { Candidate } from '../../src/protocol/wire.js';
import type { OutputMode } from '../../src/output/modes.js';
import { createRenderer, type RendererOptions } from '../../src/output/renderer.js';
import type { IO } from '../../src/terminal/io.js';
import { settle } from '../terminal/memory-io.js';

export const candidate = (agent_id: string, score: number): Candidate => ({
  agent_id,
  score,
  content_preview: `${agent_id} proposes`,
  thought_preview: '',
  claims: [],
});

export const turnStart: NsedEvent = {
  type: 'turn-start',
  session: 's1',
  turn: 't2',
  policy: 'nsed:deep',
  agents: null,
  path: 'compat',
  url: 'http://127.0.0.1:9',
};

export const finish: NsedEvent = {
  type: 'finish',
  finish_reason: 'stop',
  content: 'Hello, world.',
  session: 's1',
  turn: 't2',
  job_id: 'job-1',
  verdict: null,
  gate: null,
};

/**
 * A whole turn: start, job, rounds (one unscored), an injection, a reconnect, the answer. The turn
 * loop hands a renderer each injection once (a replayed one is dropped before it; test/turn).
 */
export const script: NsedEvent[] = [
  turnStart,
  { type: 'job', job_id: 'job-1' },
  { type: 'reasoning', text: 'Round 1 complete — convergence: 45%' },
  { type: 'round', round: 1, total_rounds: 5, progress: 0.1, scored: false, candidates: [candidate('CortexA', 0)] },
  {
    type: 'round',
    round: 1,
    total_rounds: 5,
    progress: 0.2,
    scored: true,
    candidates: [candidate('CortexB', 0.31), candidate('CortexA', 0.4666), candidate('CortexC', 0.12)],
  },
  { type: 'injection', message: 'focus on\nlatency', round: 2, sequence: 1 },
  { type: 'reconnect', attempt: 1, reason: 'the stream ended before the deliberation finished (no [DONE])' },
  { type: 'round', round: 2, total_rounds: 5, progress: 0.4, scored: true, candidates: [candidate('CortexA', 0.9)] },
  { type: 'finalized', chosen_agent_id: 'CortexA', round: 2 },
  { type: 'text', text: 'Hello, ' },
  { type: 'text', text: 'world.' },
  finish,
];

/** The stderr lines text mode prints for `script`, colour off. */
export const scriptProgress = [
  'session s1 · job job-1 · policy nsed:deep',
  'round 1/5 · 3 candidates · leader CortexA 0.47',
  'injected at round 2 (#1): focus on latency',
  'reconnecting (attempt 1): the stream ended before the deliberation finished (no [DONE])',
  'round 2/5 · 1 candidate · leader CortexA 0.90',
  'finalized · CortexA chosen at round 2',
];

/** Runs events through a fresh renderer, closes it, and lets the captured streams catch up. */
export async function render(mode: OutputMode, io: IO, events: NsedEvent[], opts?: RendererOptions): Promise<void> {
  const renderer = await createRenderer(mode, io, opts);
  for (const e of events) renderer.onEvent(e);
  await renderer.close();
  await settle();
}

export const lines = (text: string): string[] => text.split('\n').filter((l) => l !== '');
