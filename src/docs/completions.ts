import type { CommandEntry } from '../commands/command.js';
import { bashCompletion } from './completion-bash.js';
import { fishCompletion } from './completion-fish.js';
import { completionModel } from './completion-model.js';
import { zshCompletion } from './completion-zsh.js';

export type Shell = 'bash' | 'zsh' | 'fish';

/** The script `nsed completion SHELL` prints and completions/ holds. */
export function completionScript(shell: Shell, commands: readonly CommandEntry[]): string {
  const model = completionModel(commands);
  switch (shell) {
    case 'bash':
      return bashCompletion(model);
    case 'zsh':
      return zshCompletion(model);
    case 'fish':
      return fishCompletion(model);
  }
}
