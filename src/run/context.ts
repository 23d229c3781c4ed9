import type { LoadedConfig } from './config-file.js';
import type { InputDeadline } from '../files/read-input.js';
import type { ConnectOptions, ConnectTarget, Connection } from './connection.js';
import type { OutputMode } from '../output/modes.js';
import type { Renderer } from '../output/renderer-types.js';
import { runSecrets, type Secrets } from '../secrets.js';
import type { SessionStore } from '../session/index.js';
import type { SlotLease } from './deliberation-slots.js';
import type { RunSettings } from './settings.js';
import type { IO } from '../terminal/io.js';

/** Where the run's secrets start from: the token of the environment (one definition, in secrets.ts). */
export { runSecrets };

export interface Clock {
  now(): Date;
  /** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/**
 * Options every command accepts. The token itself is never a flag: it would show in `ps`. What
 * env or the config file may also set (the output mode, the timeouts, the store, progress,
 * --on-exit, colour) is in `settings`, once, with its source.
 */
export interface GlobalOptions {
  quiet: boolean;
  /** --verbose: the URL and its source, each request, the store path on stderr. */
  verbose: boolean;
  sim: boolean;
  /**
   * The config file as read for this run: for the commands that show or edit it (config,
   * doctor). Its values reach the rest through `settings`.
   */
  config: LoadedConfig;
  /** Every setting of the run, resolved once from flags, environment, config file and defaults. */
  settings: RunSettings;
}

/**
 * How a command may ask for the process's JavaScript engine to be tuned (cli/engine-profile.ts):
 * `many-turns` for a batch's, `long-stream` for one turn whose answer comes in many events.
 */
export type EngineProfile = 'many-turns' | 'long-stream';

/** What the process gives a run: everything of the outside world but the terminal (built by cli/process-context.ts). */
export interface ProcessContext {
  env: Readonly<Record<string, string | undefined>>;
  clock: Clock;
  /** Aborts on SIGINT/SIGTERM/SIGHUP; `signalExit` then says which exit code that means. */
  signal: AbortSignal;
  signalExit(): number | undefined;
  randomHex(bytes: number): string;
  /**
   * Tunes the process's JavaScript engine for what the command runs from here on (a batch asks,
   * batch/run-batch.ts, and a turn whose stream runs long, turn/live-turn.ts); the first profile
   * asked for holds. Only the entries that run turns have it (cli/main.ts, cli/fast-ask.ts): the
   * engine is process-wide, and a command run in-process (the tests, `nsed mcp`) leaves it as it is.
   */
  tuneEngine?(profile: EngineProfile): void;
}

/**
 * Everything a command and a turn need from the outside world, built once per run by runCli
 * from the global options. Tests build their own (with their own store and connection) instead
 * of mocking modules.
 */
export interface Context extends ProcessContext {
  io: IO;
  globals: GlobalOptions;
  /**
   * false under --no-save: what the run creates or changes stays in memory (withoutSaving), so
   * nothing below the command asks the flag again (no key pointer, no "saved as" line).
   */
  saving: boolean;
  /**
   * The tokens this run knows (NSED_TOKEN, then the token file once a connection reads it):
   * what the store, an export and stderr receive passes through `secrets.redact` (docs/reliability.md #89).
   */
  secrets: Secrets;
  /** The session store, opened on first use and then shared. */
  store(): Promise<SessionStore>;
  /**
   * Opens the orchestrator connection: --sim, --url, NSED_URL, `recorded` (the orchestrator a
   * session ran on), or the default. Each call opens one; the caller closes it.
   */
  connect(recorded?: string, target?: ConnectTarget, opts?: ConnectOptions): Promise<Connection>;
  /**
   * A batch item's place among the deliberations run at once (-j): its turn holds it while its
   * deliberation runs and gives it back once the deliberation ended (src/run/deliberation-slots.ts).
   * Undefined outside a batch.
   */
  deliberationSlot?: SlotLease;
  /**
   * When the run's reads of input (files, tools, schema) must have ended, if sooner than
   * --timeout: an MCP tool call's own bound (files/read-input.ts). Undefined elsewhere.
   */
  inputDeadline?: InputDeadline;
  /**
   * Where the run's turns show their events instead of the output mode's renderer: a caller that
   * takes them as values rather than as text to parse back (an MCP tool call, src/mcp/runner.ts;
   * turn/turn-renderer.ts). `none`: the turns show nothing at all, not even to a discarded
   * stream (a batch item, whose result line is made from the turn's result). Undefined
   * elsewhere: the output mode decides.
   */
  renderer?: (() => Renderer) | 'none';
}

/**
 * The global options of a run nsed makes inside another (a batch item, a reconcile, an MCP tool
 * call): the same settings, rendered in `output`, with no progress.
 */
export function innerGlobals(globals: GlobalOptions, output: OutputMode, quiet: boolean): GlobalOptions {
  const { settings } = globals;
  return {
    ...globals,
    quiet,
    settings: {
      ...settings,
      output: { ...settings.output, value: output },
      progress: { ...settings.progress, value: 'none' },
    },
  };
}

/** Replacements for the lazy factories, for tests and for callers that already hold one. */
export interface ContextParts {
  store?: () => Promise<SessionStore>;
  connect?: (recorded?: string, target?: ConnectTarget, opts?: ConnectOptions) => Promise<Connection>;
}

export function createContext(
  base: ProcessContext,
  io: IO,
  globals: GlobalOptions,
  parts: ContextParts = {},
  secrets: Secrets = runSecrets(base.env),
): Context {
  let store: Promise<SessionStore> | undefined;
  let groupStore: Promise<SessionStore> | undefined;
  const ctx: Context = {
    ...base,
    io,
    globals,
    saving: true,
    secrets,
    // Lazy: lowdb, the network stack and the simulator load only for commands that use them.
    store: parts.store ?? (() => (store ??= openStore(ctx))),
    connect:
      parts.connect ??
      (async (recorded, target, opts) => {
        const { connect } = await import('./connection.js');
        return connect(
          {
            io,
            env: base.env,
            now: () => base.clock.now(),
            sleep: (ms, s) => base.clock.sleep(ms, s),
            globals,
            secrets,
            signal: base.signal,
            signalExit: () => base.signalExit(),
          },
          recorded,
          target,
          opts,
        );
      }),
  };
  if (parts.store === undefined) groupCommitStores.set(ctx, () => (groupStore ??= openStore(ctx, true)));
  return ctx;
}

const groupCommitStores = new WeakMap<Context, () => Promise<SessionStore>>();

/**
 * The same Context, its store in group-commit mode (many turns at once in this process: `nsed
 * batch`, docs/reliability.md #260). A store the caller handed in (a test's) stays as it is.
 */
export function groupCommitting(ctx: Context): Context {
  const store = groupCommitStores.get(ctx);
  return store === undefined ? ctx : { ...ctx, store };
}

/** The store under --home / NSED_HOME / XDG_DATA_HOME. */
async function openStore(ctx: Context, groupCommit = false): Promise<SessionStore> {
  const [{ openFileStore }, { resolveHome }, { realDisk, poolSyncDisk }, { killHook, killingDisk }] = await Promise.all(
    [
      import('../session/file-store.js'),
      import('../session/index.js'),
      import('../files/atomic-write.js'),
      import('../files/kill-hook.js'),
    ],
  );
  const boundary = killHook(ctx.env);
  const { io } = ctx;
  const home = resolveHome(ctx.env, ctx.globals.settings.home.value);
  if (io.verbose && !io.quiet) io.stderr.write(`store ${home}\n`);
  return openFileStore(home, {
    groupCommit,
    ...(boundary === undefined ? {} : { disk: killingDisk(groupCommit ? poolSyncDisk : realDisk, boundary) }),
    now: () => ctx.clock.now(),
    redact: (text) => ctx.secrets.redact(text),
    // The same redaction, read off each record's text first: most need no walk (src/secrets.ts).
    redactRecord: (record, json) => ctx.secrets.redactRecord(record, json),
    // A wait is bounded by the store; saying whose lock it is tells the user what to look at.
    onLockWait: (pid) => {
      if (io.quiet) return;
      io.stderr.write(
        `waiting for the session lock held by ${pid === undefined ? 'another nsed process' : `pid ${pid}`}\n`,
      );
    },
  });
}

/**
 * The same Context, writing nothing to the store (`--no-save`): what the run creates or changes
 * stays in memory; existing sessions are still read from the real store when needed.
 */
export async function withoutSaving(ctx: Context): Promise<Context> {
  const [{ memoryOverlay }, { resolveHome, sessionsDir }] = await Promise.all([
    import('../session/memory-overlay.js'),
    import('../session/index.js'),
  ]);
  const home = resolveHome(ctx.env, ctx.globals.settings.home.value);
  const overlay = memoryOverlay(
    { home, dir: sessionsDir(home) },
    () => ctx.store(),
    () => ctx.clock.now(),
  );
  return { ...ctx, saving: false, store: async () => overlay };
}

/** The Context of a turn: the same, or one writing nothing to the store when `save` is false (--no-save). */
export async function savingAs(ctx: Context, save: boolean | undefined): Promise<Context> {
  return save === false ? withoutSaving(ctx) : ctx;
}
