import type { NsedEvent, StreamEvent } from '../../events/events.js';
import type { Transcript } from '../../events/transcript.js';

// What a turn (run-turn.ts) and a watch (watch-job.ts) make alike of the stream's events. A
// replay (after a reconnect, a resume, a watch's attach) repeats what the run has already seen,
// and the transcript is what tells a repeat (docs/reliability.md #33).

/** The transcript already holds this tool call. */
export const hasCall = (t: Transcript, callId: string): boolean => t.toolCalls.some((c) => c.id === callId);

/** The transcript already holds a result for this tool call. */
export const hasResult = (t: Transcript, callId: string): boolean => t.toolResults.some((r) => r.id === callId);

/** The injection as a run records and shows it: without its place in the stream. */
export const injectionEvent = (e: Extract<StreamEvent, { type: 'injection' }>): NsedEvent => ({
  type: 'injection',
  message: e.message,
  round: e.round,
  sequence: e.sequence,
});

/** The orchestrator names passthrough and moderator answers only on the full response: a note for the person. */
export const modeNote = (mode: string): NsedEvent => ({
  type: 'reasoning',
  text: `${mode} mode: one agent answered, without a deliberation`,
});

/** Any other stream event as a run shows it: without its place in the stream. */
export function withoutIndex(e: StreamEvent): NsedEvent {
  // Text, the event that comes by the hundred thousand, without the rest copy's generic walk.
  if (e.type === 'text') return { type: 'text', text: e.text };
  const { index: _index, ...event } = e;
  return event as NsedEvent;
}
