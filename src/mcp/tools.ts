import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ajvModule from 'ajv/dist/2020.js';
import type { Context } from '../run/context.js';
import { NsedError, usageError } from '../errors.js';
import type { NsedEvent } from '../events/events.js';
import { readTarget } from '../commands/shared/session-target.js';
import { hasText } from '../input/prompt.js';
import { pendingOwnerDead } from '../turn/idempotency/claim.js';
import { ANSWERER_NAMES, CallAnswers, type Answerer } from './call-answers.js';
import type { PendingCall, SessionFeed } from './feed.js';
import { notable, pendingCalls } from './feed.js';
import type { Runner } from './runner.js';
import { answerUri } from './resources.js';
import { cutNote, fitAnswer } from './result-fit.js';
import { MCP_TOOLS, WAIT_DEFAULT_S, type Detail, type McpToolDef } from './tool-defs.js';
import { feedState, stateText, storedState, verdictLine, type TurnState } from './turn-state.js';
import { inToolTerms } from './tool-terms.js';
import { checkTurnArgs, turnArgv } from './turn-args.js';
import { confineFiles } from './workspace.js';

/** How long `wait: false` waits for the orchestrator to name the job: its connect and first event are bounded alike. */
const START_BOUND_MS = 30_000;

/** One tool call's answer: the short text, the structured content, and whether it is an error. */
export interface ToolAnswer {
  text: string;
  structured: Record<string, unknown>;
  isError?: boolean;
  /** The session the answer is about: its resources are linked beside the text. */
  session?: string;
  /** The resource holding the whole of an answer the result cut (result-fit.ts): linked beside the text. */
  rest?: string;
}

/** What a tool call may use of the host: its progress token, its roots, its cancellation. */
export interface CallEnv {
  signal: AbortSignal;
  /**
   * Whether `signal` aborted because the host cancelled this call (notifications/cancelled), as
   * against the connection closing, which aborts it too and keeps the --on-exit rule instead.
   */
  cancelledByHost(): boolean;
  /** Called for every event of the session while the call runs (progress notifications). */
  watch?: (feed: SessionFeed) => () => Promise<void>;
  roots(): Promise<string[]>;
}

type Args = Record<string, unknown>;

/** `nsed mcp --on-cancel`: what a host's cancelled deliberate, continue or fork does to its deliberation. */
export type OnCancel = 'cancel' | 'keep';

/** The server's tools, each reusing the command it stands for (ask, continue, fork, inject, cancel, tool-result). */
export class McpTools {
  private readonly validators = new Map<string, ReturnType<InstanceType<typeof ajvModule.default>['compile']>>();

  constructor(
    private readonly ctx: Context,
    private readonly runner: Runner,
    /**
     * Puts a council question to the person through the host (MCP elicitation): the answer, or
     * undefined when the host cannot ask or the person declined (then `wait` shows the call).
     */
    private readonly ask: (question: string, options: readonly string[]) => Promise<string | undefined>,
    private readonly onCancel: OnCancel = 'cancel',
    /** Shared by every connection of the server: one dialog per question, one answer per call. */
    private readonly answers: CallAnswers = new CallAnswers(),
  ) {
    const ajv = new ajvModule.default({ allErrors: true, strict: false, logger: false });
    for (const t of MCP_TOOLS) this.validators.set(t.name, ajv.compile(t.inputSchema));
  }

  async call(name: string, args: Args, env: CallEnv): Promise<ToolAnswer> {
    const def = MCP_TOOLS.find((t) => t.name === name);
    if (def === undefined) throw usageError(`unknown tool '${name.slice(0, 60)}'`, 'tools/list names them');
    this.check(def, args);
    switch (def.name) {
      case 'deliberate':
      case 'continue':
      case 'fork':
        return this.turn(def.name, args, env);
      case 'wait':
        return this.wait(args, env);
      case 'inject':
        return this.inject(args);
      case 'cancel':
        return this.cancel(args);
      case 'answer_tool_call':
        return this.answer(args, 'model');
      case 'verdict':
        return this.verdict(args);
      default:
        return this.sessions(args);
    }
  }

  private check(def: McpToolDef, args: Args): void {
    // The turn flags' rules first, so a bad value is refused in the CLI's words for its flag.
    if (def.name === 'deliberate' || def.name === 'continue' || def.name === 'fork') checkTurnArgs(args);
    const validate = this.validators.get(def.name);
    if (validate === undefined || validate(args)) return;
    const first = validate.errors?.[0];
    const where = first?.instancePath === '' || first === undefined ? '' : ` at ${first.instancePath}`;
    throw usageError(
      `${def.name}: invalid arguments${where}: ${first?.message ?? 'see the inputSchema'}`.slice(0, 300),
    );
  }

  /** deliberate, continue, fork: the command's own parse and run, in the background. */
  private async turn(name: 'deliberate' | 'continue' | 'fork', args: Args, env: CallEnv): Promise<ToolAnswer> {
    const question = String(args['question']);
    if (question.trim() === '-') throw usageError('question: "-" would read stdin, which is the protocol stream');
    if (!hasText(question))
      throw usageError('question: has no text, only white space or control characters', 'ask the council in words');
    const files = Array.isArray(args['files']) ? await confineFiles(args['files'].map(String), await env.roots()) : [];
    // The turn flags' words from the arguments that stand for them (turn-args.ts), read by the command's own parse.
    const argv: Args = { prompt: [question], file: files, ...turnArgv(args) };
    const commands = await import('./commands.js');
    const toolsDir = await this.toolsFile(args['tools'], argv);
    const forget = (): Promise<void> =>
      toolsDir === undefined ? Promise.resolve() : rm(toolsDir, { recursive: true, force: true });
    let run: (ctx: Context) => Promise<number>;
    try {
      if (name === 'deliberate') run = commands.runAsk(argv);
      else if (name === 'continue') run = commands.runContinue({ ...argv, session: String(args['session']) });
      else
        run = commands.runFork({
          ...argv,
          source: String(args['session']),
          ...(typeof args['at'] === 'string' ? { at: args['at'] } : {}),
        });
    } catch (err) {
      await forget();
      throw err;
    }
    // Cancelled while the arguments were read: nothing was started, nothing to stop.
    if (env.signal.aborted) {
      await forget();
      throw new NsedError('interrupted', `${name} was cancelled before it started`);
    }
    // The files are read within the call's own bound: a FIFO nobody writes to cannot hold it.
    const bound = args['wait'] === false ? START_BOUND_MS : timeoutMs(args);
    const started = this.runner.start(run, undefined, {
      at: this.ctx.clock.now().getTime() + bound,
      said: `the tool call's ${args['wait'] === false ? 'start bound' : 'timeout_s'} (${bound / 1000} s)`,
    });
    void started.ended.finally(forget);
    const session = await started.session;
    if (session === undefined) {
      const end = await started.ended;
      throw runError(end.error) ?? new NsedError('bug', `${name} ended before its turn started`);
    }
    // Kept for the session, so a `wait` that sees the end refuses a degraded council as this call would.
    if (args['on_partial'] === 'refuse') this.refusePartial.add(session);
    else this.refusePartial.delete(session);
    const feed = this.runner.feed(session);
    if (args['wait'] === false)
      await this.until(feed, () => feed.jobId !== null || feed.ended !== undefined, START_BOUND_MS, {
        ...env,
        ask: true,
      });
    else await this.until(feed, () => this.settled(feed), timeoutMs(args), { ...env, ask: true });
    // The host gave up on the call (the person pressed Esc): nobody waits for the answer, so
    // the deliberation stops paying for it, unless --on-cancel keep says otherwise.
    if (env.signal.aborted && env.cancelledByHost() && !this.runner.signal.aborted) this.cancelled(feed);
    return this.state(feedState(feed, 0), args, feed);
  }

  /**
   * The turn of a call the host cancelled: its job cancelled on the orchestrator as `nsed cancel`
   * does (the turn's run then records it cancelled), once the job is named; a turn that ended
   * already costs nothing more. In the background, among the runs a closing server waits for.
   */
  private cancelled(feed: SessionFeed): void {
    const running = (): boolean => feed.ended === undefined && !feedState(feed, feed.last).done;
    if (this.onCancel === 'keep') {
      if (running())
        this.runner.log(
          'info',
          `the host cancelled its call; session ${feed.session} goes on (--on-cancel keep): cancel stops it`,
        );
      return;
    }
    const work = async (): Promise<void> => {
      await this.until(feed, () => feed.jobId !== null || !running(), START_BOUND_MS, {
        signal: this.runner.signal,
        ask: false,
      });
      if (!running()) return;
      if (feed.jobId === null) {
        this.runner.log(
          'warning',
          `the host cancelled its call before the orchestrator named a deliberation for session ${feed.session}; cancel with that session stops it`,
        );
        return;
      }
      const { runCancel } = await import('./commands.js');
      const got = await this.runner.capture('ndjson', runCancel(feed.session));
      if (got.end.error === undefined)
        this.runner.log('info', `the host cancelled its call: deliberation ${feed.jobId} cancelled`);
      else if (running())
        this.runner.log(
          'warning',
          `the host cancelled its call, but deliberation ${feed.jobId} could not be cancelled: ${got.end.error.message}`,
        );
    };
    this.runner.track(work());
  }

  /** The council's tools as a tools file (its parser checks each entry, as for --tools), with no command: the host answers. */
  private async toolsFile(tools: unknown, argv: Args): Promise<string | undefined> {
    if (!Array.isArray(tools) || tools.length === 0) return undefined;
    const entries = tools.map((t: Record<string, unknown>) => ({
      type: 'function',
      function: {
        name: t['name'],
        ...(t['description'] === undefined ? {} : { description: t['description'] }),
        ...(t['parameters'] === undefined ? {} : { parameters: t['parameters'] }),
      },
    }));
    const dir = await mkdtemp(join(tmpdir(), 'nsed-mcp-tools-'));
    const file = join(dir, 'tools.json');
    await writeFile(file, JSON.stringify(entries), { mode: 0o600 });
    argv['tools'] = file;
    return dir;
  }

  /**
   * Done, or waiting on a call the host must answer (one being asked through elicitation is not
   * yet). On the chat surface the answer that carries a call ends the turn (exit 10), answered
   * then on the same thread: the run's end is awaited first, so answer_tool_call picks the way
   * that fits; a live call there still returns as `waiting` at the call's bound.
   */
  private settled(feed: SessionFeed): boolean {
    // The run ends just after its turn's terminal event; awaited, so the result says how it ended (a gate, exit 12).
    if (feed.ended !== undefined || (!feed.followed && feedState(feed, feed.last).done)) return true;
    if (feed.path === 'compat') return false;
    return this.offered(feed.session, pendingCalls(feed.turnEvents())).length > 0;
  }

  /**
   * The pending calls that are the host's to answer: not one whose question is open in the
   * person's dialog (their answer wins), nor one answered through this server already.
   */
  private offered(session: string, calls: readonly PendingCall[]): PendingCall[] {
    return calls.filter((c) => !this.answers.asking(session, c.id) && this.answers.by(session, c.id) === undefined);
  }

  /**
   * The last `seq` this connection was given for each session: where a `wait` without `after`
   * starts, so a model that leaves `after` out still waits for what is new instead of looping.
   */
  private readonly seen = new Map<string, number>();

  /** Sessions whose turn was started with `on_partial: "refuse"`. */
  private readonly refusePartial = new Set<string>();

  /** Asks the person each ask_user question of the turn not asked yet; an answer goes back as answer_tool_call sends it. */
  elicitPending(feed: SessionFeed): void {
    for (const call of pendingCalls(feed.turnEvents())) {
      if (call.name !== 'ask_user' || call.question === null) continue;
      // One dialog per question, and none for a call the host answered already.
      if (this.answers.by(feed.session, call.id) !== undefined || !this.answers.ask(feed.session, call.id)) continue;
      void this.ask(call.question, call.options)
        .then(async (value) => {
          if (value === undefined) return;
          await this.answer({ session: feed.session, call_id: call.id, value }, 'person');
        })
        .catch((err: unknown) => {
          this.runner.log(
            'warning',
            `could not put the council's question to the person: ${String(err).slice(0, 300)}`,
          );
        })
        .then(() => {
          // Answered, or declined or failed: then the call is the host's to answer through wait and answer_tool_call.
          this.answers.closed(feed.session, call.id);
          feed.poke();
        });
    }
  }

  /**
   * Waits until `done()` holds, the bound passes, the host cancels the call, or the server
   * closes; whichever comes first. Nothing here polls: the feed wakes it on each event. A wait
   * for a host's call (`ask`) also puts the council's questions to the person.
   */
  private async until(
    feed: SessionFeed,
    done: () => boolean,
    ms: number,
    env: Pick<CallEnv, 'signal' | 'watch'> & { ask: boolean },
  ): Promise<void> {
    const bound = new AbortController();
    void this.ctx.clock.sleep(ms, bound.signal).then(
      () => bound.abort(),
      () => undefined,
    );
    const signal = AbortSignal.any([bound.signal, env.signal, this.runner.signal]);
    const stopWatching = env.watch?.(feed);
    if (env.ask) this.elicitPending(feed);
    const stopAsking = feed.listen((s) => {
      if (env.ask && s.event.type === 'tool-call') this.elicitPending(feed);
    });
    try {
      while (!done() && !signal.aborted) await feed.changed(signal);
    } finally {
      bound.abort();
      stopAsking();
      await stopWatching?.();
    }
  }

  /**
   * A turn that failed or was cut off is a tool error (its text nsed's error line and hint), with
   * the state beside it; one that answered is not, even when its gates failed (the error says so).
   */
  state(all: TurnState, args: Args, feed?: SessionFeed): ToolAnswer {
    const s = this.shown(all);
    if (s.session !== null) this.seen.set(s.session, Math.max(s.seq, this.seen.get(s.session) ?? 0));
    const failed = s.done && s.error !== null && (s.status === 'failed' || s.status === 'interrupted');
    const refused = !failed && partialRefused(s, s.session !== null && this.refusePartial.has(s.session));
    const hint = feed?.ended?.error?.hint;
    const detail: Detail = args['detail'] === 'full' ? 'full' : 'brief';
    // The text and the structured result are built from the same state, its answer whole or cut to fit.
    const fitted = fitAnswer(
      s.content,
      (content, cut) => {
        const said = { ...s, content: cut === null || content === null ? content : `${content}\n\n${cutNote(cut)}` };
        return {
          text: failed
            ? `${s.error?.code} (exit ${s.error?.exit_code}): ${inToolTerms(s.error?.message ?? '')}${hint === undefined ? '' : `\nhint: ${inToolTerms(hint)}`}\nsession ${s.session ?? '?'}`
            : refused
              ? `${stateText(said, detail)}\nrefused: the council lost votes (${refused}); the answer is kept in session ${s.session ?? '?'}`
              : stateText(said, detail),
          structured: { ...s, content, ...(cut === null ? {} : { cut }) },
        };
      },
      answerUri(s.session ?? ''),
    );
    return {
      text: fitted.text,
      structured: fitted.structured,
      ...(s.session === null ? {} : { session: s.session }),
      ...(fitted.cut === null ? {} : { rest: fitted.cut.rest }),
      ...(failed || refused ? { isError: true } : {}),
    };
  }

  /** The state as the host may act on it: the calls it is not to answer are left out, and a turn waiting on none of the rest is running. */
  private shown(s: TurnState): TurnState {
    if (s.session === null) return s;
    const calls = this.offered(s.session, s.pending_calls);
    if (calls.length === s.pending_calls.length) return s;
    return { ...s, pending_calls: calls, status: s.status === 'waiting' && calls.length === 0 ? 'running' : s.status };
  }

  /**
   * The feed of a session (by its full id), with a run of this server following its job: one
   * started elsewhere is taken up here. Undefined when this server never followed the session and
   * no job of it runs. Used by wait, and by a task's state (tasks-store.ts).
   */
  async follow(id: string): Promise<SessionFeed | undefined> {
    const store = await this.ctx.store();
    let feed = this.runner.feeds.get(id);
    if (feed?.followed !== true) {
      const session = await store.read(id);
      const pending = session.pending_job;
      if (pending !== undefined && feed?.ended?.error?.code !== 'tool_pending') {
        // Started elsewhere. An owner that went away (its turn kept as interrupted) or died
        // before it could say so (a kill -9: its process is gone and no turn answers the job)
        // left the job to whoever follows it next: resumed and recorded, as `nsed resume` does.
        // A live owner (a terminal, another server) records it itself: followed read-only, as
        // `nsed watch`. A turn recorded as stopped at a tool call is no lost answer: watched.
        const answered = session.turns.filter((t) => t.role === 'assistant' && t.job_id === pending.job_id);
        const left =
          answered.some((t) => t.status === 'interrupted') || (answered.length === 0 && pendingOwnerDead(pending));
        const commands = await import('./commands.js');
        const started = this.runner.start(left ? commands.runResume(id) : commands.runWatch(id));
        const named = await started.session;
        if (named === undefined) {
          const end = await started.ended;
          if (end.error !== undefined && end.error.code !== 'conflict') throw runError(end.error);
        }
        feed = this.runner.feeds.get(id);
      }
    }
    return feed;
  }

  private async wait(args: Args, env: CallEnv): Promise<ToolAnswer> {
    const store = await this.ctx.store();
    const id = await store.resolve(String(args['session']));
    const after = typeof args['after'] === 'number' ? args['after'] : (this.seen.get(id) ?? 0);
    const feed = await this.follow(id);
    if (feed === undefined) return this.state(storedState(await store.read(id, { rounds: true }), 0), args);
    const f = feed;
    const fresh = (): boolean => f.since(after).some((s) => notable(s.event));
    await this.until(f, () => fresh() || this.settled(f), timeoutMs(args), { ...env, ask: true });
    return this.state(feedState(f, after), args, f);
  }

  private async inject(args: Args): Promise<ToolAnswer> {
    const { runInject } = await import('./commands.js');
    const got = await this.runner.capture('ndjson', runInject(String(args['session']), String(args['message'])));
    const e = acknowledged(got.events, 'injected', got.end.error);
    return {
      text: `injected into deliberation ${e.job_id} at round ${e.round ?? '?'}`,
      structured: { session: e.session, job_id: e.job_id, sequence: e.sequence, round: e.round },
      session: e.session,
    };
  }

  private async cancel(args: Args): Promise<ToolAnswer> {
    const { runCancel } = await import('./commands.js');
    const got = await this.runner.capture('ndjson', runCancel(String(args['session'])));
    const e = acknowledged(got.events, 'cancelled', got.end.error);
    return {
      text: `cancelled deliberation ${e.job_id}`,
      structured: { session: e.session, job_id: e.job_id },
      session: e.session,
    };
  }

  /**
   * A call the turn stopped at (the answer ended at `tool_calls`, exit 10) is answered on the
   * same thread, as `continue --tool-result` answers it, and that turn runs here; a call the
   * running job waits on is answered through its endpoint, as `nsed tool-result` does.
   */
  private async answer(args: Args, by: Answerer): Promise<ToolAnswer> {
    const store = await this.ctx.store();
    const id = await store.resolve(String(args['session']));
    const callId = String(args['call_id']);
    const value = String(args['value']);
    // Checked and claimed in one step, before anything is awaited: two answers cannot both go.
    this.refuseAnswered(id, callId, by);
    this.answers.claim(id, callId, by);
    try {
      return await this.sendAnswer(id, callId, value);
    } catch (err) {
      this.answers.release(id, callId);
      throw err;
    }
  }

  /** A model's answer to a question the person is answering, or to a call answered already, is refused with who has it. */
  private refuseAnswered(session: string, callId: string, by: Answerer): void {
    const hint = `call wait with session "${session}" to follow the deliberation`;
    if (by === 'model' && this.answers.asking(session, callId))
      throw new NsedError(
        'conflict',
        `call ${callId} is being answered by the person, in the host's question dialog; their answer goes to the council`,
        { hint },
      );
    const first = this.answers.by(session, callId);
    if (first !== undefined)
      throw new NsedError('conflict', `call ${callId} was already answered by ${ANSWERER_NAMES[first]}`, { hint });
    const feed = this.runner.feeds.get(session);
    if (feed?.turnEvents().some((s) => s.event.type === 'tool-result' && s.event.id === callId) === true)
      throw new NsedError('conflict', `call ${callId} was already answered, from a terminal or another host`, {
        hint,
      });
  }

  private async sendAnswer(id: string, callId: string, value: string): Promise<ToolAnswer> {
    const commands = await import('./commands.js');
    const store = await this.ctx.store();
    const before = await store.read(id);
    const jobId = before.pending_job?.job_id ?? '';
    const stopped = before.turns.some(
      (t) =>
        t.role === 'assistant' &&
        t.job_id === jobId &&
        t.finish_reason === 'tool_calls' &&
        t.tool_calls?.some((c) => c.id === callId && c.status === undefined),
    );
    if (stopped && this.runner.feeds.get(id)?.followed !== true) {
      const started = this.runner.start(commands.runContinueWithResult(id, callId), value);
      if ((await started.session) === undefined)
        throw runError((await started.ended).error) ?? new NsedError('bug', 'the answer did not start a turn');
    } else {
      const got = await this.runner.capture('ndjson', commands.runToolResult(id, callId, value));
      if (got.end.error !== undefined) throw runError(got.end.error);
    }
    return {
      text: `answered ${callId}; call wait to follow the deliberation`,
      structured: { session: id, job_id: jobId, call_id: callId },
      session: id,
    };
  }

  private async verdict(args: Args): Promise<ToolAnswer> {
    const session = await readTarget(
      this.ctx,
      { kind: 'id', id: String(args['session']) },
      { shown: true, rounds: true },
    );
    const turn = session.turns.findLast((t) => t.role === 'assistant');
    const last = turn?.rounds?.findLast((r) => r.scored);
    // Who voted how, as the verdict keeps it (docs/ndjson.md §4b); the last round's scores where it has none.
    const ballots =
      turn?.verdict?.ballots?.chosen ??
      (last?.candidates ?? []).map((c) => ({ agent_id: c.agent_id, score: c.score, claims: c.claims }));
    const line =
      turn === undefined
        ? `session ${session.id} has no answer yet`
        : `${verdictLine(session.id, turn.verdict)} · ${turn.status}`;
    // The answer is in the structured result (content); the text is the verdict line, and the cut's note when it was cut.
    const fitted = fitAnswer(
      turn?.content ?? null,
      (content, cut) => ({
        text: cut === null ? line : `${line}\n${cutNote(cut)}`,
        structured: {
          session: session.id,
          turn: turn?.id ?? null,
          status: turn?.status ?? null,
          content,
          verdict: turn?.verdict ?? null,
          gate: turn?.gate ?? null,
          ballots,
          usage: turn?.usage ?? null,
          ...(cut === null ? {} : { cut }),
        },
      }),
      answerUri(session.id),
    );
    return {
      text: fitted.text,
      structured: fitted.structured,
      session: session.id,
      ...(fitted.cut === null ? {} : { rest: fitted.cut.rest }),
    };
  }

  private async sessions(args: Args): Promise<ToolAnswer> {
    const { runSessionsLs } = await import('./commands.js');
    const limit = typeof args['limit'] === 'number' ? args['limit'] : 20;
    const got = await this.runner.capture(
      'json',
      runSessionsLs({ limit, json: true, ...pick(args, ['state', 'policy']) }),
    );
    if (got.end.error !== undefined) throw runError(got.end.error);
    const sessions = JSON.parse(got.lines.join('\n') || '[]') as unknown[];
    return { text: `${sessions.length} session${sessions.length === 1 ? '' : 's'}`, structured: { sessions } };
  }
}

/**
 * Why an answered turn is a tool error although it answered: its council lost votes and the caller
 * said to refuse that (`on_partial: "refuse"`), or its max-synthetic gate failed; false otherwise.
 */
export function partialRefused(s: TurnState, refuse: boolean): string | false {
  if (!s.done || s.status !== 'complete') return false;
  if (s.gate?.checks.some((c) => c.name === 'max-synthetic' && c.status === 'fail') === true) return 'max-synthetic';
  if (refuse && (s.council.status === 'degraded' || s.council.status === 'failed')) return 'on_partial: refuse';
  return false;
}

const pick = (o: Args, keys: readonly string[]): Args =>
  Object.fromEntries(keys.filter((k) => o[k] !== undefined).map((k) => [k, o[k]]));

function timeoutMs(args: Args): number {
  const s = typeof args['timeout_s'] === 'number' ? args['timeout_s'] : WAIT_DEFAULT_S;
  return Math.round(s * 1000);
}

function runError(e: { code: string; message: string; hint?: string | undefined } | undefined): NsedError | undefined {
  if (e === undefined) return undefined;
  return new NsedError(e.code as NsedError['code'], e.message, e.hint === undefined ? {} : { hint: e.hint });
}

/** The one acknowledgement event of inject --no-wait or cancel, or the error the command ended with. */
function acknowledged<T extends 'injected' | 'cancelled'>(
  events: readonly NsedEvent[],
  type: T,
  error: { code: string; message: string; hint?: string | undefined } | undefined,
): Extract<NsedEvent, { type: T }> {
  const e = events.find((x): x is Extract<NsedEvent, { type: T }> => x.type === type);
  if (e !== undefined) return e;
  throw runError(error) ?? new NsedError('bug', `no ${type} acknowledgement`);
}
