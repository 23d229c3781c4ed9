import { usageError } from '../errors.js';
import type { Shell } from '../docs/completions.js';
import type { CommandDef, CommandEntry } from './command.js';
import { positionalValues, type PositionalDef } from './shared/flag-def.js';

export const SHELLS = ['bash', 'zsh', 'fish'] as const satisfies readonly Shell[];

const POSITIONALS = [
  { name: 'shell', choices: SHELLS, describe: 'the shell to complete for' },
] as const satisfies readonly PositionalDef[];

export interface CompletionOptions {
  /** undefined: the shell $SHELL names. */
  shell: Shell | undefined;
}

/**
 * `nsed completion [bash|zsh|fish]`: prints the completion script, the very text committed in
 * completions/ (both come from src/docs). Session ids complete from the store at TAB time.
 * The command table is handed in rather than imported: the script describes every command,
 * this one included, and an import would run in a circle.
 */
export function completionCommand(allCommands: () => readonly CommandEntry[]): CommandDef<CompletionOptions> {
  return {
    command: 'completion [shell]',
    describe: 'print a shell completion script (bash, zsh or fish; default: from $SHELL)',
    configFile: 'ignore',
    positionals: POSITIONALS,
    examples: [
      ['source <(nsed completion bash)', 'bash, for this shell only'],
      ['nsed completion zsh > "${fpath[1]}/_nsed"', 'zsh, for good'],
      ['nsed completion fish > ~/.config/fish/completions/nsed.fish', 'fish, for good'],
    ],
    parse: (argv) => ({ shell: positionalValues(POSITIONALS, argv).shell }),
    run: async (opts, ctx) => {
      const fromEnv = (ctx.env['SHELL'] ?? '').split('/').pop() ?? '';
      const shell = opts.shell ?? SHELLS.find((s) => s === fromEnv);
      if (shell === undefined)
        throw usageError('name the shell: nsed completion bash|zsh|fish', '$SHELL does not name one of them');
      const [{ completionScript }, { writeStdout }] = await Promise.all([
        import('../docs/completions.js'),
        import('../output/session-write.js'),
      ]);
      await writeStdout(ctx.io, completionScript(shell, allCommands()));
      return 0;
    },
  };
}
