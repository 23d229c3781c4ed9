import { composeInstantAnswer } from './answer.js';
import { chunk } from './chunks.js';
import type { Job } from './job.js';
import type { TextContext } from './text-context.js';

/**
 * Passthrough and moderator policies skip orchestration: one agent replies at once, wrapped as
 * the minimal sequence (role chunk → one content chunk → finish chunk → `[DONE]`).
 */
export function runInstant(
  job: Job,
  text: TextContext,
  mode: 'passthrough' | 'moderator',
  agent: string,
  finalAnswer: (prose: string) => string = (p) => p,
): void {
  const answer = finalAnswer(composeInstantAnswer(text, mode, agent));
  // One agent, one call: what it used is the job's whole bill.
  job.meter.charge(agent, 1, job.info.query, answer);
  job.push(chunk(job.stamp, job.roomless ? { role: 'assistant' } : { role: 'assistant', nsed_session_id: job.id }));
  job.push(chunk(job.stamp, { content: answer }), true);
  job.answer = answer;
  job.end('completed', 'stop', { last: chunk(job.stamp, {}, 'stop') });
}
