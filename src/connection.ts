import type { NsedClient } from './api/client.js';
import { SIM_ORCHESTRATOR, cleartextWarning, readToken, resolveUrlSource, type UrlSource } from './config.js';
import { sanitizeForTerminal } from './terminal/sanitize.js';
import type { IO } from './terminal/io.js';

/** What opening a connection reads (the global options by another name: this module stays below the Context). */
export interface ConnectInput {
  io: IO;
  env: Readonly<Record<string, string | undefined>>;
  now(): Date;
  globals: {
    sim: boolean;
    url: string | undefined;
    tokenFile: string | undefined;
    idleTimeoutS: number;
    timeoutS: number | undefined;
    /** The config file's values: a url and token_file rank below the flags and the environment. */
    config?: { values: { url?: string; token_file?: string } };
  };
}

export interface Connection {
  client: NsedClient;
  /** The base URL requests go to. */
  url: string;
  /** What a session records as its orchestrator (`sim` for the in-process simulator). */
  orchestrator: string;
  close(): Promise<void>;
}

/**
 * Opens the client for a command: --sim starts an in-process simulator on a random loopback
 * port; otherwise --url, NSED_URL, the session's recorded orchestrator, or the default. A
 * session that ran on the simulator goes back to a simulator of its own.
 */
export async function connect(ctx: ConnectInput, recorded?: string): Promise<Connection> {
  const { globals } = ctx;
  const warn = (line: string): void => {
    ctx.io.stderr.write(`${sanitizeForTerminal(line)}\n`);
  };
  const configured = globals.config?.values;
  const useSim =
    globals.sim ||
    (recorded === SIM_ORCHESTRATOR && globals.url === undefined && ctx.env['NSED_URL'] === undefined && configured?.url === undefined);
  let url: string;
  let source: UrlSource | 'sim' = 'sim';
  let stopSim: (() => Promise<void>) | undefined;
  let token: string | undefined;
  if (useSim) {
    const { startSim } = await import('./sim/server.js');
    const sim = await startSim({ host: '127.0.0.1', port: 0, roundMs: simRoundMs(ctx.env) });
    url = sim.url;
    stopSim = () => sim.close();
  } else {
    ({ url, source } = resolveUrlSource(globals.url, ctx.env, recorded, configured?.url));
    token = await readToken(globals.tokenFile, ctx.env, warn, configured?.token_file);
  }
  const { createClient } = await import('./api/client.js');
  const verbose = ctx.io.verbose && !ctx.io.quiet;
  if (verbose) warn(`url ${url} (${URL_SOURCE_WORDS[source]})`);
  const debug =
    ctx.env['NSED_DEBUG'] === '1' ? (line: string) => warn(`debug: ${line}`) : verbose ? (line: string) => warn(line) : undefined;
  const client = createClient({
    baseUrl: url,
    ...(token === undefined ? {} : { token }),
    idleTimeoutMs: Math.round(globals.idleTimeoutS * 1000),
    ...(globals.timeoutS === undefined ? {} : { deadline: ctx.now().getTime() + Math.round(globals.timeoutS * 1000) }),
    env: ctx.env,
    ...(debug === undefined ? {} : { debug }),
  });
  const warning = cleartextWarning(url, token);
  if (warning !== undefined) warn(warning);
  if (ctx.env['NODE_TLS_REJECT_UNAUTHORIZED'] === '0' && url.startsWith('https:')) {
    warn('warning: NODE_TLS_REJECT_UNAUTHORIZED=0 turns off certificate checks; use NODE_EXTRA_CA_CERTS for a private CA');
  }
  return {
    client,
    url,
    orchestrator: useSim ? SIM_ORCHESTRATOR : url,
    close: async () => {
      await client.close();
      if (stopSim !== undefined) await stopSim();
    },
  };
}

/** Where the URL came from, for --verbose. */
const URL_SOURCE_WORDS: Record<UrlSource | 'sim', string> = {
  sim: 'the built-in simulator',
  flag: 'from --url',
  env: 'from NSED_URL',
  config: 'from the config file',
  session: "the session's orchestrator",
  default: 'the default',
};

/** The in-process simulator paces rounds for a readable demo; NSED_SIM_ROUND_MS overrides. */
function simRoundMs(env: Readonly<Record<string, string | undefined>>): number {
  const v = Number(env['NSED_SIM_ROUND_MS']);
  return Number.isFinite(v) && v >= 0 && env['NSED_SIM_ROUND_MS'] !== undefined ? v : 120;
}
