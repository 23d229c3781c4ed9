import { Readable, Writable } from 'node:stream';
import { innerGlobals, type Context } from '../run/context.js';
import { toNsedError } from '../errors.js';
import type { InputDeadline } from '../files/read-input.js';
import type { NsedEvent } from '../events/events.js';
import type { OutputMode } from '../output/modes.js';
import type { Renderer } from '../output/renderer-types.js';
import { createIO } from '../terminal/create-io.js';
import { SessionFeed, type RunEnd } from './feed.js';

/** How long a closing server waits for its runs to record how they stopped (each cancel is bounded too). */
const SHUTDOWN_BOUND_MS = 15_000;

export type LogLevel = 'info' | 'warning' | 'error';

/** A line-splitting sink: what a command writes to its stdout or stderr, a line at a time. */
function lineSink(onLine: (line: string) => void): Writable {
  let rest = '';
  return new Writable({
    write(chunk: Buffer | string, _enc, done) {
      rest += chunk.toString();
      let nl: number;
      while ((nl = rest.indexOf('\n')) !== -1) {
        onLine(rest.slice(0, nl));
        rest = rest.slice(nl + 1);
      }
      done();
    },
    final(done) {
      if (rest !== '') onLine(rest);
      rest = '';
      done();
    },
  });
}

/** An NDJSON line of `-o ndjson` back to its event (docs/ndjson.md: the event plus `v` and `seq`). */
function eventOf(line: string): NsedEvent | undefined {
  try {
    const v = JSON.parse(line) as Record<string, unknown>;
    if (typeof v !== 'object' || v === null || typeof v['type'] !== 'string') return undefined;
    const { v: _v, seq: _seq, ...event } = v;
    return event as NsedEvent;
  } catch {
    return undefined;
  }
}

/** What a command run to its end printed: its stdout lines, its events, and how it ended. */
export interface Captured {
  lines: string[];
  events: NsedEvent[];
  end: RunEnd;
}

export interface Started {
  /** The session the command's turn runs in, once its turn starts; undefined if it ended first. */
  session: Promise<string | undefined>;
  ended: Promise<RunEnd>;
}

/**
 * Runs the CLI's own commands inside the server (never a shell), each with a Context of its own:
 * a turn's events come as values through the renderer seam (Context.renderer), a short command's
 * stdout (an acknowledgement, a listing) is read back, stderr goes to the host as MCP log messages, stdin
 * is a terminal nobody types at (so nothing waits for piped input and ask_user is left to the
 * host), and the signal is the server's: a host that goes away stops the runs as Ctrl-C would,
 * under the same `--on-exit` rule, and their sessions stay resumable (docs/reliability.md #213).
 */
export class Runner {
  readonly feeds = new Map<string, SessionFeed>();
  private readonly stop = new AbortController();
  private readonly tasks = new Set<Promise<unknown>>();
  private readonly observers = new Set<(session: string, e: NsedEvent) => void>();

  constructor(
    private readonly base: Context,
    /** To the host as an MCP log message (never stdout: that is the protocol). */
    readonly log: (level: LogLevel, text: string) => void,
  ) {}

  get signal(): AbortSignal {
    return this.stop.signal;
  }

  /** Calls `fn` for every event of every session a run follows. */
  observe(fn: (session: string, e: NsedEvent) => void): void {
    this.observers.add(fn);
  }

  feed(session: string): SessionFeed {
    let f = this.feeds.get(session);
    if (f === undefined) {
      f = new SessionFeed(session);
      this.feeds.set(session, f);
    }
    return f;
  }

  /**
   * `stdin`: what the command reads as standard input (a piped value, as `continue --tool-result
   * ID=-` reads it); without it, a terminal nobody types at.
   */
  private context(
    output: OutputMode,
    onLine: (line: string) => void,
    stdin?: string,
    inputDeadline?: InputDeadline,
    renderer?: () => Renderer,
  ): { ctx: Context; close: () => void } {
    const stdout = lineSink(onLine);
    const stderr = lineSink((line) => {
      if (line.trim() !== '')
        this.log(/^nsed: warning/.test(line) ? 'warning' : 'info', this.base.secrets.redact(line));
    });
    const io = createIO(
      { stdout, stderr, stdin: Readable.from(stdin === undefined ? [] : [stdin]) },
      this.base.env,
      { noColor: true, secrets: this.base.secrets },
      (which) => which === 'stdin' && stdin === undefined,
    );
    const ctx: Context = {
      ...this.base,
      io,
      signal: this.stop.signal,
      globals: innerGlobals(this.base.globals, output, false),
      ...(inputDeadline === undefined ? {} : { inputDeadline }),
      ...(renderer === undefined ? {} : { renderer }),
    };
    return {
      ctx,
      close: () => {
        stdout.end();
        stderr.end();
      },
    };
  }

  /** Runs a short command (inject, cancel, a listing) to its end and returns what it printed. */
  async capture(output: OutputMode, run: (ctx: Context) => Promise<number>): Promise<Captured> {
    const lines: string[] = [];
    const { ctx, close } = this.context(output, (l) => lines.push(l));
    const end = await settle(run(ctx));
    close();
    const events = lines.flatMap((l) => eventOf(l) ?? []);
    return { lines, events, end };
  }

  /**
   * Runs a turn-running command (ask, continue, fork, resume, watch) in the background. Its
   * events go to the feed of the session its turn starts in; the run outlives the tool call that
   * started it, and ends by itself (every wait inside it is bounded, docs/reliability.md#bounds).
   * `inputDeadline`: the tool call's own bound, which its reads of files must keep.
   */
  start(run: (ctx: Context) => Promise<number>, stdin?: string, inputDeadline?: InputDeadline): Started {
    let feed: SessionFeed | undefined;
    let named: (s: string | undefined) => void = () => undefined;
    const session = new Promise<string | undefined>((resolve) => (named = resolve));
    const take = (e: NsedEvent): void => {
      if (e.type === 'turn-start' && e.session !== '' && feed?.session !== e.session) {
        feed = this.feed(e.session);
        feed.followed = true;
        named(e.session);
      }
      if (feed === undefined) return;
      feed.push(e);
      for (const o of this.observers) o(feed.session, e);
    };
    // The turn's events as values, through the renderer seam (Context.renderer); its stdout has nothing the tools read.
    const { ctx, close } = this.context(
      'ndjson',
      () => undefined,
      stdin,
      inputDeadline,
      () => ({
        onEvent: take,
        close: () => Promise.resolve(),
      }),
    );
    const ended = settle(run(ctx)).then((end) => {
      close();
      feed?.end(end);
      named(undefined);
      return end;
    });
    this.tasks.add(ended);
    void ended.finally(() => this.tasks.delete(ended));
    return { session, ended };
  }

  /** Keeps `work` (a cancel the server sends on its own) among what a closing server waits for, bounded as the runs are. */
  track(work: Promise<unknown>): void {
    const settled = work.catch(() => undefined);
    this.tasks.add(settled);
    void settled.finally(() => this.tasks.delete(settled));
  }

  /** The host went away: the runs stop as on Ctrl-C (detach or --on-exit cancel), bounded. */
  async close(): Promise<void> {
    this.stop.abort(new Error('the MCP host disconnected'));
    const bound = new AbortController();
    await Promise.race([
      Promise.allSettled([...this.tasks]),
      this.base.clock.sleep(SHUTDOWN_BOUND_MS, bound.signal).catch(() => undefined),
    ]);
    bound.abort();
  }
}

async function settle(p: Promise<number>): Promise<RunEnd> {
  try {
    return { code: await p };
  } catch (err) {
    const e = toNsedError(err);
    return { code: e.exitCode, error: { code: e.code, exit_code: e.exitCode, message: e.message, hint: e.hint } };
  }
}
