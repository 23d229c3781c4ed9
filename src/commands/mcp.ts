import { usageError } from '../errors.js';
import { isLoopbackHost } from '../protocol/loopback.js';
import type { CommandDef, CommandGroup } from './command.js';
import { mcpInstall } from './mcp-install.js';
import { MCP_TOOLS_FLAG, servedTools } from './shared/mcp-tools-flag.js';
import { flagValues, type FlagDef } from './shared/flag-def.js';

export interface McpOptions {
  /** --http PORT: Streamable HTTP instead of stdio. */
  http: number | undefined;
  host: string;
  /** --tools: the tools served, by name; undefined: NSED_MCP_TOOLS, else every one. */
  tools: string | undefined;
  /** --print-tools: print the tool list's size instead of serving. */
  printTools: boolean;
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
  MCP_TOOLS_FLAG,
  {
    name: 'print-tools',
    type: 'boolean',
    default: false,
    describe: "print each tool's size and the whole tool list's, in bytes and estimated tokens, and exit",
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
const serve: CommandDef<McpOptions> = {
  command: 'mcp',
  describe: 'serve the council as MCP tools to a coding agent (stdio, or --http on loopback)',
  flags: MCP_FLAGS,
  examples: [
    ['nsed mcp install claude-code', 'give Claude Code the council'],
    ['nsed mcp --tools deliberate,wait,verdict', 'serve three tools only'],
    ['NSED_MCP_TOKEN=… nsed mcp --http 8765', 'Streamable HTTP on 127.0.0.1:8765/mcp'],
  ],
  parse: (argv) => {
    const f = flagValues(MCP_FLAGS, argv);
    return {
      http: f.http,
      host: f.host,
      tools: f.tools,
      printTools: f['print-tools'] === true,
      onCancel: f['on-cancel'] === 'keep' ? 'keep' : 'cancel',
      allowOrigin: f['allow-origin'] ?? [],
    };
  },
  run: async (opts, ctx) => {
    // An empty NSED_MCP_TOOLS is unset, as a shell's `NSED_MCP_TOOLS= nsed mcp` means it.
    const fromEnv = ctx.env['NSED_MCP_TOOLS'] === '' ? undefined : ctx.env['NSED_MCP_TOOLS'];
    const tools = servedTools(opts.tools ?? fromEnv, opts.tools === undefined);
    if (opts.printTools) {
      const { toolSizeLines } = await import('../output/tool-size-lines.js');
      ctx.io.stdout.write(toolSizeLines(tools));
      return 0;
    }
    const [{ serveMcp, httpListen }, { allowedOrigins }, { createIO }, { createContext }] = await Promise.all([
      import('../mcp/serve.js'),
      import('../mcp/origin.js'),
      import('../terminal/create-io.js'),
      import('../run/context.js'),
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
      { noColor: true, quiet: ctx.io.quiet, verbose: ctx.io.verbose, secrets: ctx.secrets },
      (which) => (which === 'stdin' ? ctx.io.stdinIsTTY : ctx.io.stderrIsTTY),
    );
    const serverCtx = createContext(
      ctx,
      io,
      ctx.globals,
      { store: () => ctx.store(), connect: ctx.connect },
      ctx.secrets,
    );
    return serveMcp(
      serverCtx,
      listen,
      { stdin: ctx.io.stdin, stdout: ctx.io.stdout },
      process.cwd(),
      tools,
      opts.onCancel,
    );
  },
};

/** `nsed mcp` serves; `nsed mcp install HOST` writes a coding agent's configuration for it. */
export const mcp: CommandGroup = {
  command: 'mcp',
  describe: serve.describe,
  bare: serve,
  subcommands: [mcpInstall],
};
