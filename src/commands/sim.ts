import { usageError } from '../errors.js';
import type { RouteName } from '../sim/router.js';
import type { CommandDef } from './command.js';
import { flagValues, type FlagDef } from './shared/flag-def.js';
import { SIM_PROFILE_FLAG, SIM_TOKEN_FLAG } from './global-options.js';
import { ownFlags } from './shared/setting-flags.js';

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
  /** Fault specs as given (`[chat|submit|resume|all:]key=value;...`), checked when the server starts. */
  faults: string[];
  withoutRoutes: RouteName[];
  /** --dedup / --no-dedup; undefined: the profile decides. */
  dedup: boolean | undefined;
  dedupTtlS: number;
  /** Hold each deliberation at its phase boundaries until released through the /_sim/ routes. */
  hold: boolean;
  /** Every agent of one model family: a council without diversity. */
  singleFamily: boolean;
}

const SIM_FLAGS = [
  { name: 'host', type: 'string', default: '127.0.0.1', describe: 'address to listen on' },
  { name: 'port', type: 'number', default: 8080, min: 0, describe: 'port (0 = a free one)' },
  SIM_PROFILE_FLAG,
  {
    name: 'dedup',
    type: 'boolean',
    defaultDescription: 'on in strict, off in default',
    describe: 'answer an identical request from the same job',
  },
  {
    name: 'dedup-ttl',
    type: 'number',
    default: 30,
    min: 0,
    describe: 'seconds an ended job still answers identical requests',
  },
  { name: 'seed', type: 'number', default: 0, min: 0, describe: 'seed for the simulated council' },
  { name: 'round-ms', type: 'number', default: 600, min: 0, describe: 'milliseconds per deliberation phase' },
  {
    name: 'tool-wait-ms',
    type: 'number',
    min: 0,
    defaultDescription: '40 phases, at least 30000',
    describe: 'how long an agent waits for a tool result before the call expires',
    valueName: 'N',
  },
  {
    name: 'keepalive-ms',
    type: 'number',
    default: 15000,
    min: 0,
    describe: 'keep-alive comment interval on idle streams',
  },
  { name: 'history-ttl', type: 'number', default: 600, min: 0, describe: 'seconds a finished job stays replayable' },
  SIM_TOKEN_FLAG,
  {
    name: 'fault',
    type: 'string',
    repeatable: true,
    describe: 'server-wide fault, [chat|submit|resume|all:]key=value;... (repeatable)',
    valueName: 'SPEC',
    sample: 'drop-after=12;times=1',
  },
  {
    name: 'without-route',
    type: 'string',
    repeatable: true,
    choices: ROUTES,
    describe: 'answer 404 on this route, like an older orchestrator (repeatable)',
  },
  {
    name: 'hold',
    type: 'boolean',
    default: false,
    describe: 'hold each deliberation at its phase boundaries until released through the /_sim/ test routes',
  },
  {
    name: 'single-family',
    type: 'boolean',
    default: false,
    describe: 'make every agent one model family (the default council spans two)',
  },
] as const satisfies readonly FlagDef[];

/** What sim's parse step reads: --profile and --token are settings, read once into RunSettings (ownFlags). */
const SIM_OWN = ownFlags(SIM_FLAGS);

/** `nsed sim`: serve the simulated orchestrator until SIGINT/SIGTERM. */
export const sim: CommandDef<SimOptions> = {
  command: 'sim',
  describe: 'serve the simulated NSED orchestrator (prints "nsed sim listening on http://HOST:PORT" first)',
  // The simulator is a server, not a client: nothing in the client's config file applies to it.
  configFile: 'ignore',
  // The client's options mean nothing to the simulator, so its help leaves them out.
  clientOptions: false,
  flags: SIM_FLAGS,
  examples: [
    ['nsed sim --port 0 --round-ms 5', 'a fast simulator on a free port'],
    ['nsed sim --profile strict', 'answer every open question the other way'],
    ['nsed sim --fault "drop-after=12;times=1"', 'drop the first chat stream after 12 events'],
  ],
  parse: (argv) => {
    const f = flagValues(SIM_OWN, argv);
    return {
      host: f.host,
      port: port(f.port),
      seed: f.seed,
      roundMs: f['round-ms'],
      toolWaitMs: f['tool-wait-ms'],
      keepaliveMs: f['keepalive-ms'],
      historyTtlS: f['history-ttl'],
      faults: f.fault,
      withoutRoutes: f['without-route'].filter((r): r is RouteName => (ROUTES as readonly string[]).includes(r)),
      dedup: f.dedup,
      dedupTtlS: f['dedup-ttl'],
      hold: f.hold,
      singleFamily: f['single-family'],
    };
  },
  run: async (opts, ctx) => {
    const [{ serveSim }, { parseFaultSpec }, { parseProfile }] = await Promise.all([
      import('../sim/serve.js'),
      import('../sim/faults.js'),
      import('../sim/profile.js'),
    ]);
    for (const f of opts.faults) parseFaultSpec(f.replace(/^(chat|submit|resume|all):/, ''));
    // --token and --profile, else NSED_SIM_TOKEN and NSED_SIM_PROFILE (RunSettings).
    const { simToken, simProfile } = ctx.globals.settings;
    const token = simToken.value;
    const profile = parseProfile(simProfile.value);
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
        singleFamily: opts.singleFamily,
      },
      { stdout: io.stdout, stderr: io.stderr },
      ctx.signal,
    );
    return 0;
  },
};

/** A TCP port: 0 (a free one) to 65535; anything else is a usage error, not a crash at listen. */
function port(v: number): number {
  if (!Number.isInteger(v) || v > 65535)
    throw usageError('--port must be a whole number from 0 to 65535', '0 picks a free port');
  return v;
}
