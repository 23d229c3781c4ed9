import { assertNever, type EventOf, type NsedEvent } from '../events/events.js';
import type { IO } from '../terminal/io.js';
import { safeWriter } from '../terminal/safe-writer.js';
import { TerminalSanitizer, oneLine } from '../terminal/sanitize.js';
import { asIs, stderrRows } from '../terminal/fit-rows.js';
import { createSpinner } from '../terminal/spinner.js';
import { createStyle } from '../terminal/style.js';
import {
  advanceProgress,
  roundClaims,
  roundClaimsText,
  type RoundClaims,
  continueHint,
  initialProgress,
  leaderText,
  progressLine,
} from './progress-state.js';
import type { Renderer, RendererOptions } from './renderer-types.js';

/** What chose the council: `policy nsed:deep`, or `agents CortexA, CortexB` for --agents. */
export function councilLabel(start: Pick<EventOf<'turn-start'>, 'policy' | 'agents'>): string {
  if (start.agents !== null) return `agents ${oneLine(start.agents.join(', '), 80)}`;
  return `policy ${oneLine(start.policy ?? '', 80)}`;
}

/** `job` line: `session <id> · job <job> · policy <policy>`, with whatever turn-start told us. */
export function jobLine(start: EventOf<'turn-start'> | undefined, jobId: string): string {
  const parts = [`job ${oneLine(jobId, 80)}`];
  if (start !== undefined) {
    // `nsed watch JOB` follows a job without a session.
    if (start.session !== '') parts.unshift(`session ${oneLine(start.session, 80)}`);
    parts.push(councilLabel(start));
  }
  return parts.join(' · ');
}

/** The session line of an answer no job was named for (a plain server, a roomless passthrough). */
export function sessionLine(start: EventOf<'turn-start'>): string {
  return `session ${oneLine(start.session, 80)} · ${councilLabel(start)}`;
}

/**
 * `round 2/5 · 3 candidates · leader CortexA 0.47 · all candidates: 0 wrong, 2 contested` (the
 * leader is the first highest score; the counts appear only when some claim is wrong or contested).
 */
export function roundLine(
  e: Pick<EventOf<'round'>, 'round' | 'total_rounds' | 'candidates' | 'leader'>,
  claims: RoundClaims = { wrong: 0, contested: 0 },
): string {
  const n = e.candidates.length;
  const line = `round ${e.round}/${e.total_rounds} · ${n} candidate${n === 1 ? '' : 's'}`;
  const leader = leaderText(e);
  const tail = claims.wrong > 0 || claims.contested > 0 ? ` · ${roundClaimsText(claims)}` : '';
  return leader === undefined ? `${line}${tail}` : `${line} · ${leader}${tail}`;
}

/** `tool result calculator · exit 0 · 12 ms: 4`; how a call was settled, on one line. */
export function toolResultLine(e: EventOf<'tool-result'>): string {
  const parts = [`tool result ${oneLine(e.name, 60)}`];
  if (e.exit_code !== null) parts.push(`exit ${e.exit_code}`);
  if (e.status !== 'ok' && !(e.status === 'error' && e.exit_code !== null)) parts.push(e.status);
  if (e.duration_ms !== null) parts.push(`${Math.round(e.duration_ms)} ms`);
  const shown =
    e.status === 'expired' ? 'no answer arrived in time; the council goes on without it' : oneLine(e.content, 80);
  return `${parts.join(' · ')}${shown === '' ? '' : `: ${shown}`}`;
}

/** `the answer does not match the schema (/score: must be number); asking for a corrected one (1/1)` */
export function schemaRetryLine(e: EventOf<'schema-retry'>): string {
  const first = e.errors
    .slice(0, 3)
    .map((x) => `${oneLine(x.path, 60)}: ${oneLine(x.message, 80)}`)
    .join('; ');
  const more = e.errors.length > 3 ? `; ${e.errors.length - 3} more` : '';
  return `the answer does not match the schema (${first}${more}); asking for a corrected one (${e.attempt}/${e.retries})`;
}

/**
 * `-o text`: the answer on stdout as it arrives, deliberation on stderr (dim, one line each),
 * and a spinner while nothing else moves. stdout is sanitised only on a terminal, so
 * `nsed ask q > a.md` holds exactly the answer's bytes.
 */
export async function createTextRenderer(io: IO, opts: RendererOptions = {}): Promise<Renderer> {
  const out = safeWriter(io.stdout);
  const err = safeWriter(io.stderr);
  const style = createStyle(io);
  const spinner = await createSpinner(io, 'deliberating');
  const rows = io.quiet ? asIs : await stderrRows(io);
  const sanitizer = io.stdoutIsTTY ? new TerminalSanitizer() : undefined;
  const sharedTerminal = io.stdoutIsTTY && io.stderrIsTTY;
  const now = opts.now ?? Date.now;
  const started = now();
  let progress = initialProgress;
  let start: EventOf<'turn-start'> | undefined;
  /** The session id was named on stderr (the job line names it). */
  let namedSession = false;
  let wroteAnswer = false;
  let answerEndsWithNewline = false;
  /** The terminal's cursor sits after answer text, not at the start of a line. */
  let midLine = false;

  const note = (line: string): void => {
    if (io.quiet) return;
    spinner.clearWhile(() => {
      // When stdout and stderr share a terminal, a progress line must not extend the answer's line.
      const lead = sharedTerminal && midLine ? '\n' : '';
      midLine = false;
      err.write(`${lead}${rows(line).map(style.dim).join('\n')}\n`);
    });
  };

  const answer = (text: string): void => {
    spinner.stop();
    const shown = sanitizer === undefined ? text : sanitizer.push(text);
    if (shown === '') return;
    out.write(shown);
    wroteAnswer = true;
    answerEndsWithNewline = shown.endsWith('\n');
    midLine = !answerEndsWithNewline;
  };

  // A finished answer always ends its line, as `-o final` does: `$(nsed ask q)` and `> a.md`
  // get a proper text line. A cut-off one gets the newline only on a terminal, for the error.
  const endAnswer = (finished: boolean): void => {
    spinner.stop();
    if (!(finished || io.stdoutIsTTY) || !wroteAnswer || answerEndsWithNewline) return;
    out.write('\n');
    answerEndsWithNewline = true;
    midLine = false;
  };

  const onEvent = (e: NsedEvent): void => {
    progress = advanceProgress(progress, e);
    if (e.type !== 'text') spinner.update(progressLine(progress, now() - started));
    switch (e.type) {
      case 'turn-start':
        start = e;
        spinner.start();
        return;
      case 'job':
        note(jobLine(start, e.job_id));
        namedSession = start !== undefined;
        return;
      case 'round':
        if (e.scored) note(roundLine(e, roundClaims(e)));
        return;
      case 'text':
        answer(e.text);
        return;
      case 'injection':
        note(`injected at round ${e.round} (#${e.sequence}): ${oneLine(e.message, 80)}`);
        return;
      case 'finalized':
        note(`finalized · ${oneLine(e.chosen_agent_id, 40)} chosen at round ${e.round}`);
        return;
      case 'tool-call':
        // A question for the person may follow on this terminal; the spinner would draw over it.
        spinner.stop();
        note(`tool call ${oneLine(e.name, 60)} ${oneLine(e.arguments, 80)} · ${oneLine(e.id, 60)}`);
        return;
      case 'tool-result':
        note(toolResultLine(e));
        return;
      case 'reconnect':
        spinner.update(`reconnecting (attempt ${e.attempt})`);
        note(`reconnecting (attempt ${e.attempt}): ${oneLine(e.reason)}`);
        return;
      case 'reasoning':
      case 'chosen':
      case 'verdict':
      case 'usage':
        return;
      case 'schema-retry':
        // The corrective answer starts on a line of its own, and a --no-stream one is shown too.
        endAnswer(true);
        wroteAnswer = false;
        note(schemaRetryLine(e));
        return;
      case 'finish':
        // A blocking (--no-stream) turn may deliver its answer only here.
        if (!wroteAnswer) answer(e.content);
        endAnswer(true);
        // The session id goes to stderr in every case (README, "One-shot questions"): where no job
        // line named it and no continue hint follows, it gets a line of its own.
        if (opts.showSessionHint === true) note(continueHint(e.session));
        else if (!namedSession && start !== undefined) note(sessionLine(start));
        return;
      case 'error':
        // main prints the error itself; on a terminal it must start on a fresh line.
        endAnswer(false);
        return;
      case 'injected': {
        const at = e.round === null ? '' : ` at round ${e.round} (sequence ${e.sequence ?? '?'})`;
        note(`injected into deliberation ${oneLine(e.job_id, 80)}${at}`);
        return;
      }
      case 'cancelled':
        note(`cancelled deliberation ${oneLine(e.job_id, 80)} of session ${oneLine(e.session, 80)}`);
        return;
      default:
        assertNever(e);
    }
  };

  return {
    onEvent,
    async close() {
      spinner.stop();
      await Promise.all([out.drain(), err.drain()]);
    },
  };
}
