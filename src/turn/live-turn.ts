import type { NsedEvent, StreamEvent } from '../events/events.js';
import { thisHost } from '../process-alive.js';
import type { PendingJob } from '../session/index.js';
import { declareTools, type DeclaredTools } from '../tools/declared.js';
import { applyEvent, emptyTranscript, type Transcript } from '../events/transcript.js';
import { hasCall, hasResult, injectionEvent, modeNote, withoutIndex } from './follow/stream-replay.js';
import type { CapStop } from './turn-end.js';
import { ToolDriver } from './tools/tool-driver.js';
import type { TurnDeps, TurnSpec } from './turn-spec.js';

/**
 * Events after which a turn's stream counts as long, and the process's engine is tuned for it
 * (cli/engine-profile.ts). A short answer never pays for the tuning's check (~0.1 ms) or its
 * watch of the collector (~1.6 ms); a 1 MB answer in a million chunks peaked at 75-77 MiB with
 * it, a third more without.
 */
export const LONG_STREAM_EVENTS = 10_000;

/**
 * One running turn's state: the transcript folded from its events and the job it runs as. Every
 * event goes through here to the renderer (data flows one way: typed events -> renderer &
 * recorder); the loop (turn-loop.ts) feeds it and finishTurn (finish-turn.ts) reads it.
 */
export class LiveTurn {
  transcript: Transcript = emptyTranscript();
  jobId: string | undefined;
  readonly declared: DeclaredTools;
  readonly driver: ToolDriver;
  /** Set by the spend watch (spend-watch.ts) once the cap was crossed and the cancel sent. */
  capped: CapStop | undefined;
  /** Under a spend cap: false once the watch found the cap could not act (undefined: no cap). */
  capEnforced: boolean | undefined;
  /** The spend watch's wake-up: the job was named, or a round was scored (a boundary where the cap is judged). */
  onProgress: (() => void) | undefined;
  private emitted = 0;

  constructor(
    readonly deps: TurnDeps,
    readonly spec: TurnSpec,
  ) {
    this.declared = deps.tools ?? declareTools([], [], false);
    this.driver = new ToolDriver({
      ctx: deps.ctx,
      client: deps.client,
      declared: this.declared,
      sessionId: spec.sessionId,
      emit: this.emit,
      jobId: () => this.jobId,
    });
  }

  readonly emit = (e: NsedEvent): void => {
    this.transcript = applyEvent(this.transcript, e);
    this.deps.renderer.onEvent(e);
    if (e.type === 'job' || (e.type === 'round' && e.scored)) this.onProgress?.();
    if (++this.emitted === LONG_STREAM_EVENTS) this.deps.ctx.tuneEngine?.('long-stream');
  };

  /** Resolves once the pending marker is durable; the job is shown only after that (docs/reliability.md #36). */
  readonly noteJob = async (id: string): Promise<void> => {
    if (this.jobId !== undefined) return;
    this.jobId = id;
    const { ctx, recorder, liveSim } = this.deps;
    const marker: PendingJob = {
      job_id: id,
      turn: this.spec.userTurnId,
      path: this.spec.path,
      policy: this.spec.policy,
      started: ctx.clock.now().toISOString(),
      owner: { pid: process.pid, host: thisHost() },
    };
    // Where a second terminal finds a job that lives only in this process (--sim).
    if (liveSim !== undefined) marker.sim = liveSim;
    await recorder.pending(marker);
    this.emit({ type: 'job', job_id: id });
  };

  /** One event of the job's own stream (no tool calls: applyStream settles those first). */
  readonly apply = (e: StreamEvent): void => {
    switch (e.type) {
      case 'job':
        // Normally known from the response header already; a server without the header names
        // the job in the first chunk, and then the marker is written in the background.
        void this.noteJob(e.job_id);
        return;
      case 'injection':
        this.applyInjection(e);
        return;
      case 'end':
        // The orchestrator names passthrough and moderator answers only on the full response.
        if (e.mode !== undefined) this.emit(modeNote(e.mode));
        this.transcript = applyEvent(this.transcript, e);
        return;
      default:
        this.emit(withoutIndex(e));
    }
  };

  /** Any event of the stream, tool calls included: a live call waits while the job runs on. */
  readonly applyStream = (e: StreamEvent): void => {
    if (e.type === 'tool-result' && (this.driver.owns(e.id) || hasResult(this.transcript, e.id))) return;
    if (e.type === 'tool-call') {
      const { index: _index, live, ...call } = e;
      if (hasCall(this.transcript, call.id)) return;
      this.emit(call);
      // A live call waits while the job runs on; one that closed a compat answer is settled by the loop.
      if (live === true && !hasResult(this.transcript, call.id)) this.driver.onLive(call);
      return;
    }
    this.apply(e);
  };

  /**
   * A replay after a reconnect delivers injections again; the transcript keeps each once, and
   * only a new one is recorded and shown (renderers see every injection once).
   */
  private applyInjection(e: Extract<StreamEvent, { type: 'injection' }>): void {
    const injection = injectionEvent(e);
    const before = this.transcript;
    this.transcript = applyEvent(this.transcript, injection);
    if (this.transcript === before) return;
    const { recorder, ctx, renderer } = this.deps;
    if (this.jobId !== undefined)
      recorder.injection(this.jobId, e, this.deps.newTurnId(), ctx.clock.now().toISOString());
    renderer.onEvent(injection);
  }
}
