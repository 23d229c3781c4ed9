import { asUnsent, NsedError, stopError } from '../errors.js';
import type { Transcript } from '../events/transcript.js';
import { endOfError } from './error-end.js';
import { finishTurn, passesThrough } from './finish-turn.js';
import { LiveTurn } from './live-turn.js';
import { watchSpend } from './spend-watch.js';
import type { TurnEnd } from './turn-end.js';
import type { TurnResult } from './turn-result.js';
import { concludeTurn, followEvents } from './turn-loop.js';
import type { TurnDeps, TurnSpec } from './turn-spec.js';

export type { TurnDeps, TurnSpec } from './turn-spec.js';

/**
 * One turn, from its first event to its exit code (data flows one way): bytes become events in
 * api/, the loop (turn-loop.ts) hands each to the renderer and the recorder and returns how the
 * turn ended as a value (turn-end.ts), and finishTurn (finish-turn.ts) records that end, emits
 * exactly one terminal event, finish or error, and maps it to the result. A turn that ends on an
 * error throws it, carrying its result (turn-result.ts).
 */
export async function playTurn(
  deps: TurnDeps,
  spec: TurnSpec,
): Promise<{ transcript: Transcript; result: TurnResult }> {
  // A batch item's deliberation waits for its place among the -j (src/run/deliberation-slots.ts); a
  // signal that ends the wait ends the turn unsent (it is forgotten, execute-turn.ts).
  const slot = deps.ctx.deliberationSlot;
  if (slot !== undefined && !(await slot.acquire(deps.ctx.signal))) throw stoppedWaiting(deps.ctx.signal);
  const live = new LiveTurn(deps, spec);
  live.emit({
    type: 'turn-start',
    session: spec.sessionId,
    turn: spec.assistantTurnId,
    policy: spec.agents === undefined ? spec.policy : null,
    agents: spec.agents ?? null,
    path: spec.path,
    url: deps.url,
  });
  // A spend cap is watched beside the loop; it cancels the job, and the loop's end says why.
  const watch = spec.cap === undefined ? undefined : watchSpend(live, spec.cap);
  let end: TurnEnd;
  try {
    const loop = await followEvents(live);
    await watch?.stop(true);
    await live.driver.close();
    end = await concludeTurn(live, loop);
  } catch (err) {
    await watch?.stop(false);
    if (err instanceof NsedError && passesThrough(err)) throw err;
    await live.driver.close();
    end = await endOfError(live, err);
  }
  // The deliberation has ended: reading its ballots and recording its answer are this client's
  // own work, which need not keep a batch's next deliberation waiting (docs/reliability.md #273).
  slot?.release();
  const result = await finishTurn(live, end);
  return { transcript: live.transcript, result };
}

/** A wait for a place that a signal ended: what the signal means (stopError), and nothing was sent. */
function stoppedWaiting(signal: AbortSignal): NsedError {
  return asUnsent(stopError(signal.reason));
}

/** A turn's transcript once it ended (see playTurn). */
export async function runTurn(deps: TurnDeps, spec: TurnSpec): Promise<Transcript> {
  return (await playTurn(deps, spec)).transcript;
}
