import type { EventOf } from '../events.js';
import { safeWriter } from '../terminal/safe-writer.js';
import type { IO } from '../terminal/io.js';
import { applyEvent, emptyTranscript } from '../turn/transcript.js';
import { toJsonLine } from './ndjson.js';
import type { Renderer } from './renderer-types.js';

/**
 * `-o json`: one object when the turn ends. Rounds are the scored ones (what `sessions show`
 * and the store keep); content is the finish event's, as in every other mode. On error, nothing.
 */
export function createJsonRenderer(io: IO): Renderer {
  const out = safeWriter(io.stdout);
  let transcript = emptyTranscript();
  let start: EventOf<'turn-start'> | undefined;
  return {
    onEvent(e) {
      if (e.type === 'injected' || e.type === 'cancelled') {
        // An acknowledgement, not a turn: the one object is the event itself.
        out.write(toJsonLine(e));
        return;
      }
      if (e.type === 'turn-start') start = e;
      transcript = applyEvent(transcript, e);
      if (e.type !== 'finish') return;
      out.write(
        toJsonLine({
          session: e.session,
          turn: e.turn,
          job_id: e.job_id ?? transcript.jobId,
          policy: start?.policy ?? null,
          agents: start?.agents ?? null,
          content: e.content,
          reasoning: transcript.reasoning,
          rounds: transcript.rounds.filter((r) => r.scored),
          injections: transcript.injections,
          tool_calls: transcript.toolCalls,
          tool_results: transcript.toolResults,
          finish_reason: e.finish_reason,
        }),
      );
    },
    close: () => out.drain(),
  };
}
