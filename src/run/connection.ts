import type { NsedClient, StartGate } from '../api/index.js';
import { SIM_ORCHESTRATOR, cleartextWarning, readToken } from './config.js';
import { sessionMayStandIn, type RunSettings, type SettingSource } from './settings.js';
import { NsedError } from '../errors.js';
import { isAlive } from '../process-alive.js';
import type { LiveSim } from '../protocol/live-sim.js';
import { redactSecrets, type Secrets } from '../secrets.js';
import { sanitizeForTerminal } from '../terminal/sanitize.js';
import type { IO } from '../terminal/io.js';

/** What opening a connection reads (the global options by another name: this module stays below the Context). */
export interface ConnectInput {
  io: IO;
  env: Readonly<Record<string, string | undefined>>;
  now(): Date;
  /** The client's waits (Retry-After, the connect back-off) go through the Context's clock, which a test can make instant. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  globals: {
    sim: boolean;
    /** Where the URL, the token, the waits and the simulator's profile and pace come from. */
    settings: Pick<RunSettings, 'url' | 'token' | 'simProfile' | 'simRoundMs' | 'idleTimeoutS' | 'timeoutS'>;
  };
  /** Told the token once it is read, so nothing this run writes carries it. */
  secrets?: Pick<Secrets, 'add'>;
  /** The run's signal, which ends the wait for a token file on a FIFO as --timeout does. */
  signal?: AbortSignal;
  signalExit?(): number | undefined;
}

export interface Connection {
  client: NsedClient;
  /** The base URL requests go to, as it is shown and recorded: credentials in it as `***` (docs/reliability.md #88). */
  url: string;
  /** What a session records as its orchestrator (`sim` for the in-process simulator), credentials as `***`. */
  orchestrator: string;
  /** The in-process simulator (--sim) jobs run on, ours or another process's, for a pending marker to name. */
  liveSim?: LiveSim | undefined;
  close(): Promise<void>;
}

/** A session's pending job, for a connection that may have to reach it where it runs. */
export interface ConnectTarget {
  pending: { job_id: string; sim?: LiveSim | undefined } | undefined;
  /**
   * The command acts on that job (inject, cancel, resume): a job whose simulator is gone is an
   * error rather than a reason to start a fresh simulator.
   */
  needsJob: boolean;
}

/** How the connection's client behaves beyond the run's settings. */
export interface ConnectOptions {
  /** The back-off its starts share (`nsed batch`: one for all the batch's items). */
  startGate?: StartGate;
}

/**
 * Opens the client for a command: --sim starts an in-process simulator on a random loopback
 * port; otherwise --url, NSED_URL, the session's recorded orchestrator, or the default. A
 * session that ran on the simulator goes back to a simulator of its own, except that a job
 * still pending on another process's simulator is reached there while that process lives.
 */
export async function connect(
  ctx: ConnectInput,
  recorded?: string,
  target?: ConnectTarget,
  opts: ConnectOptions = {},
): Promise<Connection> {
  const { globals } = ctx;
  const warn = (line: string): void => {
    ctx.io.stderr.write(`${sanitizeForTerminal(line)}\n`);
  };
  const { settings } = globals;
  // A session's recorded orchestrator ranks below flag, environment and config file.
  const urlIsDefault = sessionMayStandIn(settings.url);
  const recordedSim = recorded === SIM_ORCHESTRATOR && urlIsDefault;
  const owner =
    recordedSim && !globals.sim && target?.pending !== undefined
      ? ownerSim(target.pending, target.needsJob)
      : undefined;
  const useSim = owner === undefined && (globals.sim || recordedSim);
  let url: string;
  let source: SettingSource | 'sim' | 'owner' = 'sim';
  let stopSim: (() => Promise<void>) | undefined;
  let liveSim: LiveSim | undefined;
  let token: string | undefined;
  if (owner !== undefined) {
    url = owner.url;
    source = 'owner';
    liveSim = owner;
  } else if (useSim) {
    const [{ startSim }, { parseProfile }] = await Promise.all([
      import('../sim/server.js'),
      import('../sim/profile.js'),
    ]);
    const profile = parseProfile(settings.simProfile.value).name;
    const sim = await startSim({ host: '127.0.0.1', port: 0, roundMs: settings.simRoundMs.value, profile });
    url = sim.url;
    stopSim = () => sim.close();
    liveSim = { url: sim.url, pid: process.pid };
  } else {
    const session = recorded !== undefined && recorded !== SIM_ORCHESTRATOR && urlIsDefault ? recorded : undefined;
    ({ value: url, source } =
      session === undefined ? settings.url : { value: session.replace(/\/+$/, ''), source: 'session' as const });
    token = await readToken(settings.token.value, settings.token.from, ctx.env, warn, {
      timeoutS: settings.timeoutS.value,
      signal: ctx.signal,
      signalExit: () => ctx.signalExit?.(),
      sleep: ctx.sleep,
    });
    ctx.secrets?.add(token);
  }
  const { createClient } = await import('../api/index.js');
  const verbose = ctx.io.verbose && !ctx.io.quiet;
  const given = url;
  url = orchestratorBase(url);
  // The client sends no query string and refuses userinfo; what is shown and stored drops them
  // too, and the token itself should the URL's path hold it (docs/reliability.md #89).
  const shown = redactSecrets(url, token);
  if (verbose) {
    const v1 =
      url === given
        ? ''
        : `; ${redactSecrets(given, token)} ends in /v1, the compat API's prefix, so its parent is the base`;
    warn(`url ${shown} (${URL_SOURCE_WORDS[source]}${v1})`);
  }
  const debug =
    ctx.env['NSED_DEBUG'] === '1'
      ? (line: string) => warn(`debug: ${line}`)
      : verbose
        ? (line: string) => warn(line)
        : undefined;
  const client = createClient({
    baseUrl: url,
    ...(token === undefined ? {} : { token }),
    idleTimeoutMs: Math.round(settings.idleTimeoutS.value * 1000),
    ...(settings.timeoutS.value === undefined
      ? {}
      : { deadline: ctx.now().getTime() + Math.round(settings.timeoutS.value * 1000) }),
    env: ctx.env,
    ...(ctx.sleep === undefined ? {} : { sleep: ctx.sleep }),
    ...(debug === undefined ? {} : { debug }),
    ...(opts.startGate === undefined ? {} : { startGate: opts.startGate }),
  });
  const warning = cleartextWarning(url, token);
  if (warning !== undefined) warn(warning);
  if (ctx.env['NODE_TLS_REJECT_UNAUTHORIZED'] === '0' && url.startsWith('https:')) {
    warn(
      'warning: NODE_TLS_REJECT_UNAUTHORIZED=0 turns off certificate checks; use NODE_EXTRA_CA_CERTS for a private CA',
    );
  }
  return {
    client,
    url: shown,
    orchestrator: useSim || owner !== undefined ? SIM_ORCHESTRATOR : shown,
    liveSim,
    close: async () => {
      await client.close();
      if (stopSim !== undefined) await stopSim();
    },
  };
}

/**
 * The orchestrator's base for a URL as a person pastes it. OpenAI SDKs, llm and LiteLLM take a
 * base ending in `/v1`; nsed adds `/v1` to the compat routes itself and reaches the native ones
 * (`/deliberation`, `/agents`) at the base, so such a URL means its parent. Anything else (and a
 * string that is no URL, which the client reports) is returned as given.
 */
export function orchestratorBase(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url.trim());
  } catch {
    return url;
  }
  const path = parsed.pathname.replace(/\/+$/, '');
  if (!path.endsWith('/v1')) return url;
  parsed.pathname = path.slice(0, -'/v1'.length) || '/';
  return parsed.href.replace(/\/+$/, '');
}

/** Where the URL came from, for --verbose. */
const URL_SOURCE_WORDS: Record<SettingSource | 'sim' | 'owner', string> = {
  sim: 'the built-in simulator',
  owner: 'the simulator of the --sim run that started the job',
  flag: 'from --url',
  env: 'from NSED_URL',
  config: 'from the config file',
  session: "the session's orchestrator",
  default: 'the default',
};

/**
 * The simulator a pending job runs on, when another process started it with --sim. That
 * process must still live: the simulator and its jobs end with it, and a simulator of our own
 * would know nothing of the job, so a command that needs the job stops here and says why.
 */
function ownerSim(pending: NonNullable<ConnectTarget['pending']>, needsJob: boolean): LiveSim | undefined {
  const sim = pending.sim;
  if (
    sim !== undefined &&
    typeof sim.url === 'string' &&
    typeof sim.pid === 'number' &&
    sim.pid !== process.pid &&
    isAlive(sim.pid)
  ) {
    return { url: sim.url, pid: sim.pid };
  }
  if (!needsJob) return undefined;
  const whose = sim === undefined ? 'another nsed process' : `process ${sim.pid}`;
  throw new NsedError(
    'conflict',
    `nothing is running: deliberation ${pending.job_id} ran on the in-process simulator of ${whose} (--sim), which has exited`,
    {
      hint: 'a --sim deliberation lives only as long as the command that started it; start a new turn with nsed continue',
    },
  );
}
