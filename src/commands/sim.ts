import { usageError } from '../errors.js';
import type { RouteName } from '../sim/router.js';
import { stringFlag, stringList, type CommandDef, type ParsedArgv } from './command.js';
import { GLOBAL_OPTION_NAMES } from './global-options.js';

const ROUTES = [
  'inject',
  'cancel',
  'resume',
  'details',
  'models',
  'deliberations',
  'responses',
  'job-stream',
] as const satisfies readonly RouteName[];

export interface SimOptions {
  host: string;
  port: number;
  seed: number;
  roundMs: number;
  /** Undefined: the simulator's own default (40 phases, at least 30 s). */
  toolWaitMs: number | undefined;
  keepaliveMs: number;
  historyTtlS: number;
  /** The bearer token to require; undefined: NSED_SIM_TOKEN, else none. */
  token: string | undefined;
  /** Fault specs as given (`[chat|submit|resume|all:]key=value;...`), checked when the server starts. */
  faults: string[];
  withoutRoutes: RouteName[];
  /** The profile named by --profile; undefined: NSED_SIM_PROFILE, else `default`. */
  profile: string | undefined;
  /** --dedup / --no-dedup; undefined: the profile decides. */
  dedup: boolean | undefined;
  dedupTtlS: number;
  /** Hold each deliberation at its phase boundaries until released through the /_sim/ routes. */
  hold: boolean;
}

/** The client's options mean nothing to the simulator, so its help leaves them out. */
const CLIENT_OPTIONS = GLOBAL_OPTION_NAMES.filter((name) => name !== 'help' && name !== 'version');

/** `nsed sim`: serve the simulated orchestrator until SIGINT/SIGTERM. */
export const sim: CommandDef<SimOptions> = {
  command: 'sim',
  describe: 'serve the simulated NSED orchestrator (prints "nsed sim listening on http://HOST:PORT" first)',
  // The simulator is a server, not a client: nothing in the client's config file applies to it.
  configFile: 'ignore',
  builder: (y) =>
    CLIENT_OPTIONS.reduce((acc, key) => acc.option(key, { hidden: true }), y)
      .option('host', { type: 'string', default: '127.0.0.1', describe: 'address to listen on' })
      .option('port', { type: 'number', default: 8080, describe: 'port (0 = a free one)' })
      .option('profile', {
        type: 'string',
        choices: ['default', 'strict'],
        describe:
          'how the simulator answers what docs/protocol.md leaves open (env NSED_SIM_PROFILE; default: default)',
      })
      .option('dedup', {
        type: 'boolean',
        describe: 'answer an identical request from the same job (default: on with --profile strict)',
      })
      .option('dedup-ttl', {
        type: 'number',
        default: 30,
        describe: 'seconds an ended job still answers identical requests',
      })
      .option('seed', { type: 'number', default: 0, describe: 'seed for the simulated council' })
      .option('round-ms', { type: 'number', default: 600, describe: 'milliseconds per deliberation phase' })
      .option('tool-wait-ms', {
        type: 'number',
        describe:
          'how long an agent waits for a tool result before the call expires (default 40 phases, at least 30000)',
      })
      .option('keepalive-ms', {
        type: 'number',
        default: 15000,
        describe: 'keep-alive comment interval on idle streams',
      })
      .option('history-ttl', { type: 'number', default: 600, describe: 'seconds a finished job stays replayable' })
      .option('token', { type: 'string', describe: 'require this bearer token (env NSED_SIM_TOKEN)' })
      .option('fault', {
        type: 'string',
        array: true,
        describe: 'server-wide fault, [chat|submit|resume|all:]key=value;... (repeatable)',
      })
      .option('without-route', {
        type: 'string',
        array: true,
        choices: ROUTES,
        describe: 'answer 404 on this route, like an older orchestrator (repeatable)',
      })
      .option('hold', {
        type: 'boolean',
        default: false,
        describe: 'hold each deliberation at its phase boundaries until released through the /_sim/ test routes',
      })
      .example('nsed sim --port 0 --round-ms 5', 'a fast simulator on a free port')
      .example('nsed sim --profile strict', 'answer every open question the other way')
      .example('nsed sim --fault "drop-after=12;times=1"', 'drop the first chat stream after 12 events'),
  parse: (argv) => ({
    host: String(argv['host']),
    port: port(argv),
    seed: nonNegative(argv, 'seed'),
    roundMs: nonNegative(argv, 'round-ms'),
    toolWaitMs: argv['tool-wait-ms'] === undefined ? undefined : nonNegative(argv, 'tool-wait-ms'),
    keepaliveMs: nonNegative(argv, 'keepalive-ms'),
    historyTtlS: nonNegative(argv, 'history-ttl'),
    token: stringFlag(argv, 'token'),
    faults: stringList(argv, 'fault'),
    withoutRoutes: stringList(argv, 'without-route').filter((r): r is RouteName =>
      (ROUTES as readonly string[]).includes(r),
    ),
    profile: stringFlag(argv, 'profile'),
    dedup: typeof argv['dedup'] === 'boolean' ? argv['dedup'] : undefined,
    dedupTtlS: nonNegative(argv, 'dedup-ttl'),
    hold: argv['hold'] === true,
  }),
  run: async (opts, ctx) => {
    const [{ serveSim }, { parseFaultSpec }, { parseProfile }] = await Promise.all([
      import('../sim/serve.js'),
      import('../sim/faults.js'),
      import('../sim/profile.js'),
    ]);
    for (const f of opts.faults) parseFaultSpec(f.replace(/^(chat|submit|resume|all):/, ''));
    const token = opts.token ?? ctx.env['NSED_SIM_TOKEN'];
    const profile = parseProfile(opts.profile ?? ctx.env['NSED_SIM_PROFILE']);
    const { io } = ctx;
    await serveSim(
      {
        host: opts.host,
        port: opts.port,
        seed: opts.seed,
        roundMs: opts.roundMs,
        ...(opts.toolWaitMs === undefined ? {} : { toolWaitMs: opts.toolWaitMs }),
        keepaliveMs: opts.keepaliveMs,
        historyTtlMs: opts.historyTtlS * 1000,
        ...(token === undefined || token === '' ? {} : { token }),
        faults: opts.faults,
        profile: profile.name,
        ...(opts.dedup === undefined ? {} : { dedup: opts.dedup }),
        dedupTtlMs: opts.dedupTtlS * 1000,
        withoutRoutes: opts.withoutRoutes,
        hold: opts.hold,
      },
      { stdout: io.stdout, stderr: io.stderr },
      ctx.signal,
    );
    return 0;
  },
};

function nonNegative(argv: ParsedArgv, key: string): number {
  const v = argv[key];
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw usageError(`--${key} must be a non-negative number`);
  return v;
}

/** A TCP port: 0 (a free one) to 65535; anything else is a usage error, not a crash at listen. */
function port(argv: ParsedArgv): number {
  const v = nonNegative(argv, 'port');
  if (!Number.isInteger(v) || v > 65535)
    throw usageError('--port must be a whole number from 0 to 65535', '0 picks a free port');
  return v;
}
