import type { CommandDef } from './command.js';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;

/**
 * `nsed completion [bash|zsh|fish]`: prints the completion script, the very text committed in
 * completions/ (both come from src/docs). Session ids complete from the store at TAB time.
 */
export const completion: CommandDef = {
  command: 'completion [shell]',
  describe: 'print a shell completion script (bash, zsh or fish; default: from $SHELL)',
  builder: (y) =>
    y
      .positional('shell', { choices: SHELLS, describe: 'the shell to complete for' })
      .example('source <(nsed completion bash)', 'bash, for this shell only')
      .example('nsed completion zsh > "${fpath[1]}/_nsed"', 'zsh, for good')
      .example('nsed completion fish > ~/.config/fish/completions/nsed.fish', 'fish, for good'),
  run: async (env, argv) => {
    const fromEnv = (env.ctx.env['SHELL'] ?? '').split('/').pop() ?? '';
    const shell = SHELLS.find((s) => s === (typeof argv['shell'] === 'string' ? argv['shell'] : fromEnv));
    if (shell === undefined) {
      throw (await import('../errors.js')).usageError('name the shell: nsed completion bash|zsh|fish', '$SHELL does not name one of them');
    }
    const [{ completionScript }, { writeStdout }] = await Promise.all([import('../docs/completions.js'), import('../output/session-write.js')]);
    await writeStdout(env.ctx.io, completionScript(shell));
    return 0;
  },
};
