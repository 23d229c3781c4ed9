// The SDK's TaskStore (MCP Tasks, 2025-11-25, experimental) over nsed's session store: the SDK
// answers tasks/get, tasks/result, tasks/list and tasks/cancel through it, and a turn tool
// called with `task` is started here. Every answer is read from the store (or from the run of
// this server that follows the turn), so nothing is lost when the server process restarts. The
// 2026 Tasks extension, which is wire-incompatible, would be a second adapter over tasks.ts.
import type { CreateTaskOptions, TaskStore } from '@modelcontextprotocol/sdk/experimental/tasks';
import {
  ErrorCode,
  McpError,
  type CallToolResult,
  type CreateTaskResult,
  type Result,
  type Task,
} from '@modelcontextprotocol/sdk/types.js';
import type { Context } from '../run/context.js';
import { NsedError, toNsedError } from '../errors.js';
import type { Session } from '../session/index.js';
import type { SessionFeed } from './feed.js';
import type { Runner } from './runner.js';
import { MCP_TOOLS } from './tool-defs.js';
import { inToolTerms } from './tool-terms.js';
import type { CallEnv, McpTools, ToolAnswer } from './tools.js';
import { feedState, type TurnState } from './turn-state.js';
import {
  askedTurn,
  feedAnswerTurn,
  parseTaskId,
  statusMessage,
  storedTurnState,
  taskId,
  taskStatus,
  type TaskRef,
} from './tasks.js';

/**
 * How often a host is asked to poll, and how often the SDK's tasks/result reads the task while it
 * waits for its end: each read is one small file, and a round of a deliberation takes seconds.
 */
export const TASK_POLL_MS = 1_000;
/** How long tasks/cancel waits for the run following the job to record it cancelled. */
const CANCEL_BOUND_MS = 30_000;
/** After a failed attempt to take up a job nothing here follows, reads wait this long before the next. */
const ADOPT_PAUSE_MS = 10_000;
/** tasks/list names this server's newest tasks, at most this many. */
const LISTED_MAX = 100;

/**
 * A task's result is the brief one (docs/mcp-results.md): the call's `detail` is not kept in the
 * store, and a result read after a restart must be the same as one read before it.
 */
const BRIEF = {};

/** What the tasks of one connection use of the server. */
export interface TaskDeps {
  ctx: Context;
  runner: Runner;
  tools: McpTools;
  /** A tool's answer as a tool call's result (server.ts): the same text, links and redaction. */
  result: (a: ToolAnswer) => CallToolResult;
}

/** A task's state as read now: its session, its turn's state, and the run following it here, if any. */
interface TaskRead {
  session: Session;
  turn: string;
  state: TurnState;
  feed?: SessionFeed;
}

export class SessionTasks implements TaskStore {
  /** The ids of the tasks created through this server, newest last: what tasks/list names. */
  private readonly created: string[] = [];
  /** A take-up of a session's job under way, so polls that overlap start one run, not several. */
  private readonly adopting = new Map<string, Promise<SessionFeed | undefined>>();
  /** When a take-up last left nothing followed, per session. */
  private readonly failedAt = new Map<string, number>();
  /** Jobs cancelled through tasks/cancel: cancelled, though no run here records it. */
  private readonly cancelledJobs = new Set<string>();

  constructor(private readonly deps: TaskDeps) {}

  /** Called by startTask through the SDK's request task store: `context` holds the TaskRef. */
  async createTask(params: CreateTaskOptions): Promise<Task> {
    const ref = params.context as TaskRef | undefined;
    const id = ref === undefined ? undefined : taskId(ref);
    if (id === undefined || parseTaskId(id) === undefined)
      throw new NsedError('bug', 'a task names its session and turn');
    this.created.splice(0, this.created.length, ...this.created.filter((c) => c !== id).slice(1 - LISTED_MAX), id);
    const task = await this.getTask(id);
    if (task === null) throw new NsedError('bug', `task ${id} is not in the store`);
    return task;
  }

  async getTask(id: string): Promise<Task | null> {
    const read = await this.read(id);
    if (read === undefined) return null;
    const { session, turn, state, feed } = read;
    const answer = state.done ? this.deps.tools.state(state, BRIEF, feed) : undefined;
    const asked = session.turns.find((t) => t.id === turn)?.ts;
    return {
      taskId: id,
      status: taskStatus(state, answer?.isError === true),
      statusMessage: this.deps.ctx.secrets.redact(statusMessage(state, feed)),
      createdAt: asked ?? session.pending_job?.started ?? session.created,
      lastUpdatedAt: session.updated,
      // A task lasts as long as its session is in the store: nsed removes neither on a clock.
      ttl: null,
      pollInterval: TASK_POLL_MS,
    };
  }

  async getTaskResult(id: string): Promise<Result> {
    const read = await this.read(id);
    if (read === undefined) throw new McpError(ErrorCode.InvalidParams, 'Failed to retrieve task: Task not found');
    return this.deps.result(this.deps.tools.state(read.state, BRIEF, read.feed));
  }

  /** Nothing to keep: the run that follows a turn records its answer in the store, which is the task's result. */
  async storeTaskResult(): Promise<void> {}

  /**
   * The SDK calls this for tasks/cancel (`cancelled`): the job is cancelled on the orchestrator,
   * as `nsed cancel` does. Every other status follows from the turn's own, so it is not stored.
   */
  async updateTaskStatus(id: string, status: Task['status']): Promise<void> {
    if (status === 'cancelled') await this.cancel(id);
  }

  async listTasks(cursor?: string): Promise<{ tasks: Task[] }> {
    if (cursor !== undefined) throw new Error('nsed lists its tasks in one page, without a cursor');
    const tasks: Task[] = [];
    for (const id of [...this.created].reverse()) {
      const task = await this.getTask(id).catch(() => null);
      if (task !== null) tasks.push(task);
    }
    return { tasks };
  }

  /**
   * A task id the client sent, read: undefined when it is not a task id, or names a session or
   * question the store does not hold. A running turn is read from the run of this server that
   * follows it; a job nothing here follows (its server restarted) is taken up first, as wait does.
   */
  private async read(id: string): Promise<TaskRead | undefined> {
    const ref = parseTaskId(id);
    if (ref === undefined) return undefined;
    const stored = await this.stored(ref);
    if (stored === undefined) return undefined;
    const job = stored.session.pending_job;
    if (stored.state.done || job?.turn !== ref.turn) return stored;
    const feed = await this.followed(ref.session);
    if (feed?.followed === true && (feed.jobId === null || feed.jobId === job.job_id)) {
      this.deps.tools.elicitPending(feed);
      return { ...stored, state: feedState(feed, 0), feed };
    }
    // The run here ended since the store was read (so the store has its record), or none follows it.
    const again = feed === undefined ? stored : ((await this.stored(ref)) ?? stored);
    if (this.cancelledJobs.has(job.job_id) && !again.state.done)
      return { ...again, state: { ...again.state, status: 'cancelled', done: true } };
    return again;
  }

  private async stored(ref: TaskRef): Promise<TaskRead | undefined> {
    let session: Session;
    try {
      session = await (await this.deps.ctx.store()).read(ref.session, { rounds: true });
    } catch (err) {
      if (toNsedError(err).code === 'not_found') return undefined;
      throw err;
    }
    const state = storedTurnState(session, ref.turn);
    return state === undefined ? undefined : { session, turn: ref.turn, state };
  }

  /** The run of this server that follows the session's job, taking it up when none does; bounded retries. */
  private async followed(session: string): Promise<SessionFeed | undefined> {
    const live = this.deps.runner.feeds.get(session);
    if (live?.followed === true) return live;
    const now = this.deps.ctx.clock.now().getTime();
    if (now - (this.failedAt.get(session) ?? -Infinity) < ADOPT_PAUSE_MS) return live;
    let taking = this.adopting.get(session);
    if (taking === undefined) {
      taking = this.deps.tools
        .follow(session)
        .catch((err: unknown) => {
          this.deps.runner.log('warning', `could not follow session ${session}: ${toNsedError(err).message}`);
          return undefined;
        })
        .finally(() => this.adopting.delete(session));
      this.adopting.set(session, taking);
    }
    const feed = await taking;
    if (feed?.followed !== true) this.failedAt.set(session, this.deps.ctx.clock.now().getTime());
    return feed;
  }

  private async cancel(id: string): Promise<void> {
    const read = await this.read(id);
    if (read === undefined || read.state.done) return;
    const { runCancel } = await import('./commands.js');
    const got = await this.deps.runner.capture('ndjson', runCancel(read.session.id));
    const err = got.end.error;
    if (err !== undefined)
      throw new McpError(
        ErrorCode.InvalidRequest,
        this.deps.ctx.secrets.redact(`${err.code} (exit ${err.exit_code}): ${inToolTerms(err.message)}`),
      );
    if (read.state.job_id !== null) this.cancelledJobs.add(read.state.job_id);
    // The run following the job records it cancelled: waited for, so the answer to tasks/cancel says so.
    if (read.feed !== undefined) await this.ended(read.feed, CANCEL_BOUND_MS);
  }

  /** Resolves when the run following `feed` ended, or after `ms`, or when the server closes. */
  private async ended(feed: SessionFeed, ms: number): Promise<void> {
    const bound = new AbortController();
    void this.deps.ctx.clock.sleep(ms, bound.signal).then(
      () => bound.abort(),
      () => undefined,
    );
    const signal = AbortSignal.any([bound.signal, this.deps.runner.signal]);
    try {
      while (feed.followed && !signal.aborted) await feed.changed(signal);
    } finally {
      bound.abort();
    }
  }
}

/**
 * A turn tool called with `task`: the turn starts as `wait: false` starts it (the call returns
 * once the orchestrator named the job), and its task is created, named by the session and the
 * question. A tool that does not run as a task is refused as the spec asks; a call refused before
 * its turn started is the request's error, as there is no task to carry it.
 */
export async function startTask(
  deps: TaskDeps,
  name: string,
  args: Record<string, unknown>,
  env: CallEnv,
  create: (params: CreateTaskOptions) => Promise<Task>,
): Promise<CreateTaskResult> {
  if (MCP_TOOLS.find((t) => t.name === name)?.execution === undefined)
    throw new McpError(ErrorCode.MethodNotFound, `${name} does not run as a task: call it without task`);
  let answer: ToolAnswer;
  try {
    answer = await deps.tools.call(name, { ...args, wait: false }, env);
  } catch (err) {
    const e = toNsedError(err);
    const hint = e.hint === undefined ? '' : `; hint: ${inToolTerms(e.hint)}`;
    throw new McpError(
      e.code === 'usage' ? ErrorCode.InvalidParams : ErrorCode.InternalError,
      deps.ctx.secrets.redact(`${e.code} (exit ${e.exitCode}): ${inToolTerms(e.message)}${hint}`),
    );
  }
  if (answer.session === undefined) throw new McpError(ErrorCode.InternalError, deps.ctx.secrets.redact(answer.text));
  const session = await (await deps.ctx.store()).read(answer.session, { rounds: true });
  const feed = deps.runner.feeds.get(answer.session);
  const turn = askedTurn(session, feed === undefined ? null : feedAnswerTurn(feed));
  if (turn === undefined) throw new NsedError('bug', `session ${session.id} holds no question for the task`);
  const task = await create({ ttl: null, pollInterval: TASK_POLL_MS, context: { session: session.id, turn } });
  return { task };
}
