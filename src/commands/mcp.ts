import { usageError } from '../errors.js';
import { isLoopbackHost } from '../protocol/loopback.js';
import type { CommandDef } from './command.js';
import { flagValues, type FlagDef } from './shared/flag-def.js';

export interface McpOptions {
  /** --http PORT: Streamable HTTP instead of stdio. */
  http: number | undefined;
  host: string;
  /** --on-cancel: what a host's cancelled deliberate, continue or fork does to its deliberation. */
  onCancel: 'cancel' | 'keep';
  /** --allow-origin: pages of these origins may call --http, beside loopback ones. */
  allowOrigin: string[];
}

const MCP_FLAGS = [
  {
    name: 'http',
    type: 'number',
    integer: true,
    min: 0,
    max: 65535,
    describe: 'serve Streamable HTTP on this port (0 = a free one) instead of stdio; needs NSED_MCP_TOKEN',
    valueName: 'PORT',
    sample: '0',
  },
  {
    name: 'host',
    type: 'string',
    default: '127.0.0.1',
    emptyHint: 'e.g. --host 127.0.0.1',
    describe: 'the address --http listens on; other than loopback only when named here',
    valueName: 'HOST',
    sample: '127.0.0.1',
  },
  {
    name: 'on-cancel',
    type: 'string',
    choices: ['cancel', 'keep'],
    default: 'cancel',
    describe:
      'what a host cancelling a running deliberate, continue or fork (Esc) does: cancel its deliberation on the orchestrator, or keep it running',
    details:
      'the call is cancelled when the host sends notifications/cancelled for it; a host that disconnects follows --on-exit instead (detach by default)',
    valueName: 'WHAT',
  },
  {
    name: 'allow-origin',
    type: 'string',
    repeatable: true,
    emptyHint: 'e.g. --allow-origin https://app.example.com',
    describe:
      'with --http: also admit requests whose Origin is this one (scheme://host[:port]); others than loopback get 403',
    valueName: 'ORIGIN',
    sample: 'https://app.example.com',
  },
] as const satisfies readonly FlagDef[];

/**
 * `nsed mcp [--http PORT [--host HOST]]`: the council as MCP tools for a coding agent (README
 * "nsed mcp"). Over stdio by default; the same store, settings, lease and config as every other
 * command, so what it starts is a session `nsed watch`, `inject` and `cancel` reach, and back.
 */
export const mcp: CommandDef<McpOptions> = {
  command: 'mcp',
  describe: 'serve the council as MCP tools to a coding agent (stdio, or --http on loopback)',
  flags: MCP_FLAGS,
  examples: [
    ['claude mcp add nsed -- nsed mcp', 'give Claude Code the council'],
    ['NSED_MCP_TOKEN=… nsed mcp --http 8765', 'Streamable HTTP on 127.0.0.1:8765/mcp'],
  ],
  parse: (argv) => {
    const f = flagValues(MCP_FLAGS, argv);
    return {
      http: f.http,
      host: f.host,
      onCancel: f['on-cancel'] === 'keep' ? 'keep' : 'cancel',
      allowOrigin: f['allow-origin'] ?? [],
    };
  },
  run: async (opts, ctx) => {
    const [{ serveMcp, httpListen }, { allowedOrigins }, { createIO }, { createContext }] = await Promise.all([
      import('../mcp/serve.js'),
      import('../mcp/origin.js'),
      import('../terminal/create-io.js'),
      import('../context.js'),
    ]);
    if (opts.http === undefined && opts.host !== '127.0.0.1')
      throw usageError('--host goes with --http', 'nsed mcp --http 8765 --host 127.0.0.1');
    if (opts.http === undefined && opts.allowOrigin.length > 0)
      throw usageError(
        '--allow-origin goes with --http',
        'nsed mcp --http 8765 --allow-origin https://app.example.com',
      );
    if (opts.http !== undefined && !isLoopbackHost(opts.host))
      ctx.io.stderr.write(
        `nsed: warning: serving MCP on ${opts.host}, beyond this machine; every request needs the token\n`,
      );
    const listen =
      opts.http === undefined
        ? { kind: 'stdio' as const }
        : httpListen(opts.host, opts.http, ctx.env['NSED_MCP_TOKEN'], allowedOrigins(opts.allowOrigin));
    // stdout is the protocol: whatever below would print there (a notice, a hint) goes to stderr.
    const io = createIO(
      { stdout: ctx.io.stderr, stderr: ctx.io.stderr, stdin: ctx.io.stdin },
      ctx.env,
      { noColor: true, quiet: ctx.io.quiet, verbose: ctx.io.verbose },
      (which) => (which === 'stdin' ? ctx.io.stdinIsTTY : ctx.io.stderrIsTTY),
    );
    const serverCtx = createContext(
      ctx,
      io,
      ctx.globals,
      { store: () => ctx.store(), connect: ctx.connect },
      ctx.secrets,
    );
    return serveMcp(serverCtx, listen, { stdin: ctx.io.stdin, stdout: ctx.io.stdout }, process.cwd(), opts.onCancel);
  },
};
