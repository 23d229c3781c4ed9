import { NsedError, usageError } from '../errors.js';
import { HOST_NAMES, MCP_HOSTS, type HostName } from '../mcp/hosts.js';
import type { CommandDef } from './command.js';
import { flagValues, positionalValues, type FlagDef, type PositionalDef } from './shared/flag-def.js';
import { INSTALL_TOOLS_FLAG, servedTools } from './shared/mcp-tools-flag.js';

export interface McpInstallOptions {
  host: HostName;
  /** The project's file instead of the user's: in `dir`, else the working directory. */
  project: boolean;
  dir: string | undefined;
  force: boolean;
  print: boolean;
  tools: string | undefined;
}

const POSITIONALS = [
  { name: 'host', describe: 'the coding agent', choices: HOST_NAMES },
] as const satisfies readonly PositionalDef[];

const INSTALL_FLAGS = [
  {
    name: 'project',
    type: 'boolean',
    default: false,
    describe: "write the project's configuration (e.g. .cursor/mcp.json) instead of the user's",
  },
  {
    name: 'dir',
    type: 'string',
    emptyHint: 'e.g. --dir .',
    describe: 'the project folder for --project (default: the working directory); implies --project',
    valueName: 'DIR',
    complete: 'dir',
    sample: '.',
  },
  {
    name: 'force',
    type: 'boolean',
    default: false,
    describe: 'replace an nsed entry that differs from the one nsed would write',
  },
  {
    name: 'print',
    type: 'boolean',
    default: false,
    describe: 'print the entry instead of writing it (nothing is written)',
  },
  INSTALL_TOOLS_FLAG,
] as const satisfies readonly FlagDef[];

/** A config file larger than this is not one a host wrote for itself: refused rather than read whole. */
const MAX_CONFIG_BYTES = 64 * 1024 * 1024;

/**
 * `nsed mcp install HOST`: writes nsed's server entry into a coding agent's own configuration,
 * with the host's tool timeout above the longest wait (src/mcp/hosts.ts). Idempotent: run again,
 * it changes nothing and says so. Other servers' entries and other keys keep their meaning; a
 * different nsed entry is replaced only with --force (else exit 7); a file it cannot parse (JSON
 * with comments) is refused with exit 2, nothing written. The file is written as every file
 * outside the store is (files/outside-file.ts), and only when it is a regular file or absent.
 */
export const mcpInstall: CommandDef<McpInstallOptions> = {
  command: 'install <host>',
  describe: "add nsed to a coding agent's MCP configuration, its tool timeout above the longest wait",
  configFile: 'ignore',
  clientOptions: false,
  positionals: POSITIONALS,
  flags: INSTALL_FLAGS,
  examples: [
    ['nsed mcp install codex', 'add [mcp_servers.nsed] to ~/.codex/config.toml with tool_timeout_sec'],
    ['nsed mcp install vscode --project', "add nsed to this project's .vscode/mcp.json"],
    ['nsed mcp install cursor --print', 'show the entry, write nothing'],
  ],
  epilog:
    'Exit 0 when written or already there (nothing changed); 7 (conflict) when a different nsed entry is there, ' +
    'unless --force; 2 when the file cannot be parsed (JSON with comments) or is not a regular file. ' +
    'Other servers and keys keep their meaning.',
  parse: (argv) => {
    const f = flagValues(INSTALL_FLAGS, argv);
    const { host } = positionalValues(POSITIONALS, argv);
    if (host === undefined) throw usageError('name a coding agent', `one of ${HOST_NAMES.join(', ')}`);
    return {
      host,
      project: f.project === true || f.dir !== undefined,
      dir: f.dir,
      force: f.force === true,
      print: f.print === true,
      tools: f.tools,
    };
  },
  run: async (opts, ctx) => {
    const [path, { mergeEntry, entryText }] = await Promise.all([import('node:path'), import('../mcp/host-config.js')]);
    const host = MCP_HOSTS[opts.host];
    const args =
      opts.tools === undefined
        ? []
        : [
            '--tools',
            servedTools(opts.tools, false)
              .map((t) => t.name)
              .join(','),
          ];
    const entry = host.entry(args);
    const places = { env: ctx.env, platform: process.platform, projectDir: path.resolve(opts.dir ?? process.cwd()) };
    const file = opts.project ? host.projectFile(places) : host.userFile(places);
    if (file === undefined)
      throw usageError(
        `cannot find ${host.label}'s user configuration: HOME is not set`,
        `set HOME, or write the project's file: nsed mcp install ${host.name} --project`,
      );

    if (opts.print) {
      ctx.io.stdout.write(entryText(host, entry));
      if (!ctx.io.quiet) ctx.io.stderr.write(`nsed: nothing written; ${host.label} reads this from ${file}\n`);
      return 0;
    }

    const before = await readConfig(file, host.label);
    const edit = mergeEntry(host, before, entry, opts.force);
    switch (edit.kind) {
      case 'unchanged':
        ctx.io.stdout.write(`nsed is already in ${file} as it would be written: nothing changed\n`);
        return 0;
      case 'conflict':
        throw new NsedError('conflict', `${file} already has a different nsed entry: ${edit.existing.slice(0, 200)}`, {
          hint: `nsed mcp install ${host.name} --force replaces it (the other servers stay as they are)`,
        });
      case 'unreadable':
        throw usageError(
          `cannot update ${file}: ${edit.reason}; nothing written`,
          `add the entry by hand: nsed mcp install ${host.name} --print shows it`,
        );
    }
    // The host (or a second install) may have written the file since it was read: its change is kept, not lost.
    if ((await readConfig(file, host.label)) !== before)
      throw new NsedError('conflict', `${file} changed while nsed was editing it; nothing written`, {
        hint: 'run the install again',
      });
    const { writeOutsideFile } = await import('../files/outside-file.js');
    await writeOutsideFile(file, edit.text, { label: `${host.label}'s configuration`, makeDirs: true });
    ctx.io.stdout.write(`${edit.kind === 'added' ? 'added nsed to' : 'replaced the nsed entry in'} ${file}\n`);
    if (!ctx.io.quiet) ctx.io.stderr.write(`${host.timeoutNote}\n`);
    return 0;
  },
};

/**
 * The file's text, or undefined where nothing is. Only a regular file (a link to one followed) is
 * read and later replaced: a folder, a device, a FIFO or a socket is refused (exit 2), so nothing
 * but the named file can change.
 */
async function readConfig(file: string, label: string): Promise<string | undefined> {
  const { readFile } = await import('node:fs/promises');
  const { statRefusingLoop } = await import('../files/outside-file.js');
  const st = await statRefusingLoop(file, `${label}`);
  if (st === undefined) return undefined;
  if (!st.isFile())
    throw usageError(`${file} is not a regular file; nsed writes ${label} only as one`, 'name a project with --dir');
  if (st.size > MAX_CONFIG_BYTES)
    throw usageError(`${file} is larger than ${MAX_CONFIG_BYTES / 1024 / 1024} MB; nsed does not rewrite it`);
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? String(err);
    throw new NsedError('io', `cannot read ${file}: ${code}`, {
      cause: err,
      hint: 'check the permissions of the file and its folder',
    });
  }
}
