/**
 * The exit-code table (docs/reference.md "Exit codes"); the only place these numbers are written. It lives
 * beside the error type so that every layer can name a code without reaching into the CLI.
 */
export const ExitCode = {
  ok: 0,
  bug: 1,
  usage: 2,
  notFound: 3,
  auth: 4,
  server: 5,
  network: 6,
  conflict: 7,
  store: 8,
  cancelled: 9,
  toolPending: 10,
  io: 11,
  gateFailed: 12,
  inconclusive: 13,
  schemaMismatch: 14,
  /** A spend cap (--max-cost, --max-tokens) was crossed: the deliberation was cancelled there. */
  costCap: 15,
  /** `batch merge`: a shard of the matrix, or an item of the batch, has no result line. */
  incomplete: 16,
  timeout: 124,
  sighup: 129,
  interrupted: 130,
  terminated: 143,
} as const;

export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

/** Stable names for error kinds; they appear as `code` in NDJSON `error` events. */
export type ErrorCode =
  | 'usage'
  | 'not_found'
  | 'auth'
  | 'server'
  | 'network'
  | 'conflict'
  | 'store'
  | 'timeout'
  | 'interrupted'
  | 'cancelled'
  | 'tool_pending'
  | 'io'
  | 'gate_failed'
  | 'inconclusive'
  | 'schema_mismatch'
  | 'cost_cap'
  | 'incomplete'
  | 'bug';

export type StreamDrop = 'eof' | 'reset' | 'idle' | 'malformed';

const exitFor: Record<ErrorCode, ExitCodeValue> = {
  usage: ExitCode.usage,
  not_found: ExitCode.notFound,
  auth: ExitCode.auth,
  server: ExitCode.server,
  network: ExitCode.network,
  conflict: ExitCode.conflict,
  store: ExitCode.store,
  timeout: ExitCode.timeout,
  interrupted: ExitCode.interrupted,
  cancelled: ExitCode.cancelled,
  tool_pending: ExitCode.toolPending,
  io: ExitCode.io,
  gate_failed: ExitCode.gateFailed,
  inconclusive: ExitCode.inconclusive,
  schema_mismatch: ExitCode.schemaMismatch,
  cost_cap: ExitCode.costCap,
  incomplete: ExitCode.incomplete,
  bug: ExitCode.bug,
};

/**
 * Every failure nsed reports is an NsedError: a one-line message, an optional hint, and the
 * exit code its kind maps to. Messages never carry the bearer token or raw server payloads.
 */
export class NsedError extends Error {
  readonly code: ErrorCode;
  readonly exitCode: ExitCodeValue;
  readonly hint: string | undefined;
  /** Seconds the server asked us to wait (Retry-After), when it said. */
  readonly retryAfterS: number | undefined;
  /** HTTP status, when the error came from a response. */
  readonly status: number | undefined;
  /**
   * Set when a stream broke in a way that resuming the same job can repair: the connection
   * ended without `[DONE]`, was reset, went idle, or carried a malformed chunk.
   */
  readonly drop: StreamDrop | undefined;
  /**
   * Set when the request provably never reached the orchestrator (refused, unresolvable, no
   * tunnel, or stopped before its headers went out): nothing can have started there.
   */
  readonly unsent: boolean;
  /** Set on a 429/503 that proves no job was started (no job id came back): safe to send again. */
  readonly nothingStarted: boolean;

  constructor(
    code: ErrorCode,
    message: string,
    opts: {
      hint?: string;
      cause?: unknown;
      exitCode?: ExitCodeValue;
      retryAfterS?: number;
      status?: number;
      drop?: StreamDrop;
      unsent?: boolean;
      nothingStarted?: boolean;
    } = {},
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'NsedError';
    this.code = code;
    this.exitCode = opts.exitCode ?? exitFor[code];
    this.hint = opts.hint;
    this.retryAfterS = opts.retryAfterS;
    this.status = opts.status;
    this.drop = opts.drop;
    this.unsent = opts.unsent === true;
    this.nothingStarted = opts.nothingStarted === true;
  }
}

export const usageError = (message: string, hint?: string): NsedError =>
  new NsedError('usage', message, hint === undefined ? {} : { hint });

export const notFound = (message: string, hint?: string): NsedError =>
  new NsedError('not_found', message, hint === undefined ? {} : { hint });

export const storeError = (message: string, opts: { hint?: string; cause?: unknown } = {}): NsedError =>
  new NsedError('store', message, opts);

/**
 * The one message for what only an NSED orchestrator does (a council, rounds, a job to resume,
 * inject into or cancel), asked of a plain OpenAI-compatible server. A usage error: the command
 * cannot work against that server, whatever is retried.
 */
export const notNsedOrchestrator = (server: string, why: string): NsedError =>
  new NsedError('usage', `${server} is not an NSED orchestrator: ${why}`, {
    hint: 'a plain OpenAI-compatible server answers ask, continue and fork (-m NAME); councils, resume, inject and cancel need NSED',
  });

/** Turns anything thrown into an NsedError; unknown throwables are bugs (exit 1). */
export function toNsedError(err: unknown): NsedError {
  if (err instanceof NsedError) return err;
  const message = err instanceof Error ? err.message : String(err);
  return new NsedError('bug', `unexpected failure (a bug in nsed): ${message}`, {
    cause: err,
    hint: 'run again with NSED_DEBUG=1 and report the stack trace',
  });
}

/**
 * What the run's own signal stopping a wait means: the NsedError nsed aborted it with (a signal's
 * exit, the batch's --timeout), else an interrupt.
 */
export function stopError(reason: unknown): NsedError {
  return reason instanceof NsedError ? reason : new NsedError('interrupted', 'interrupted');
}

/** The same error, said of a request that provably never reached the orchestrator (`unsent`). */
export function asUnsent(e: NsedError): NsedError {
  if (e.unsent) return e;
  return new NsedError(e.code, e.message, {
    ...(e.hint === undefined ? {} : { hint: e.hint }),
    ...(e.status === undefined ? {} : { status: e.status }),
    ...(e.drop === undefined ? {} : { drop: e.drop }),
    ...(e.retryAfterS === undefined ? {} : { retryAfterS: e.retryAfterS }),
    exitCode: e.exitCode,
    cause: e.cause,
    unsent: true,
  });
}

const reported = new WeakSet<object>();

/** Marks an error whose NDJSON `error` event a renderer already wrote, so none is written twice. */
export function markReported(err: unknown): void {
  if (typeof err === 'object' && err !== null) reported.add(err);
}

export function wasReported(err: unknown): boolean {
  return typeof err === 'object' && err !== null && reported.has(err);
}
