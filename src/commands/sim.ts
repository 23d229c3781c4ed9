import type { RouteName } from '../sim/router.js';
import type { CommandDef } from './command.js';

/** `nsed sim`: serve the simulated orchestrator until SIGINT/SIGTERM. */
export const sim: CommandDef = {
  command: 'sim',
  describe: 'serve the simulated NSED orchestrator (prints "nsed sim listening on http://HOST:PORT" first)',
  builder: (y) =>
    y
      .option('host', { type: 'string', default: '127.0.0.1', describe: 'address to listen on' })
      .option('port', { type: 'number', default: 8080, describe: 'port (0 = a free one)' })
      .option('seed', { type: 'number', default: 0, describe: 'seed for the simulated council' })
      .option('round-ms', { type: 'number', default: 600, describe: 'milliseconds per deliberation phase' })
      .option('keepalive-ms', { type: 'number', default: 15000, describe: 'keep-alive comment interval on idle streams' })
      .option('history-ttl', { type: 'number', default: 600, describe: 'seconds a finished job stays replayable' })
      .option('token', { type: 'string', describe: 'require this bearer token (env NSED_SIM_TOKEN)' })
      .option('fault', { type: 'string', array: true, describe: 'server-wide fault, [chat|submit|resume|all:]key=value;... (repeatable)' })
      .option('without-route', {
        type: 'string',
        array: true,
        choices: ['inject', 'cancel', 'resume', 'details', 'models', 'deliberations'],
        describe: 'answer 404 on this route, like an older orchestrator (repeatable)',
      })
      .example('nsed sim --port 0 --round-ms 5', 'a fast simulator on a free port')
      .example('nsed sim --fault "drop-after=12;times=1"', 'drop the first chat stream after 12 events'),
  run: async (env, argv) => {
    const { serveSim, parseFaultSpec, usageError } = await loadSim();
    const num = (k: string): number => {
      const v = argv[k];
      if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw usageError(`--${k} must be a non-negative number`);
      return v;
    };
    const port = num('port');
    if (!Number.isInteger(port) || port > 65535) throw usageError('--port must be a whole number from 0 to 65535', '0 picks a free port');
    const faults = Array.isArray(argv['fault']) ? argv['fault'].map(String) : [];
    for (const f of faults) parseFaultSpec(f.replace(/^(chat|submit|resume|all):/, ''));
    const token = typeof argv['token'] === 'string' ? argv['token'] : env.ctx.env['NSED_SIM_TOKEN'];
    const { io } = env.ctx;
    await serveSim(
      {
        host: String(argv['host']),
        port,
        seed: num('seed'),
        roundMs: num('round-ms'),
        keepaliveMs: num('keepalive-ms'),
        historyTtlMs: num('history-ttl') * 1000,
        ...(token === undefined || token === '' ? {} : { token }),
        faults,
        withoutRoutes: Array.isArray(argv['without-route']) ? (argv['without-route'] as RouteName[]) : [],
      },
      { stdout: io.stdout, stderr: io.stderr },
      env.ctx.signal,
    );
    return 0;
  },
};

async function loadSim() {
  const [{ serveSim }, { parseFaultSpec }, { usageError }] = await Promise.all([
    import('../sim/serve.js'),
    import('../sim/faults.js'),
    import('../errors.js'),
  ]);
  return { serveSim, parseFaultSpec, usageError };
}
