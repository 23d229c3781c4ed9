import { isGroup, type CommandEntry } from '../commands/command.js';
import { commands } from '../commands/index.js';
import { HELP_WIDTH } from './help-width.js';
import { parseWords } from './run-cli.js';

/** Every `nsed [WORDS…] --help` the build renders: the top level, each command, alias and subcommand. */
export function helpShapes(entries: readonly CommandEntry[] = commands): string[][] {
  const names = (e: CommandEntry): string[] => [
    e.command.split(' ')[0] ?? '',
    ...('aliases' in e ? (e.aliases ?? []) : []),
  ];
  const shapes: string[][] = [[]];
  for (const entry of entries) {
    for (const name of names(entry)) {
      shapes.push([name]);
      if (isGroup(entry)) for (const sub of entry.subcommands) for (const s of names(sub)) shapes.push([name, s]);
    }
  }
  return shapes;
}

/** The words of a help shape as the key of its stored text. */
export const helpKey = (words: readonly string[]): string => words.join(' ');

/**
 * What `nsed [WORDS…] --help` prints on a pipe, for every shape, as yargs renders it from the
 * command definitions at HELP_WIDTH (a pipe, a file, a wide terminal). scripts/build.mjs stores the result in dist/help.cjs;
 * test/cli/stored-help.test.ts holds the stored texts to a fresh rendering.
 */
export async function renderHelpTexts(): Promise<Record<string, string>> {
  const texts: Record<string, string> = {};
  for (const words of helpShapes()) {
    const parsed = await parseWords([...words, '--help'], HELP_WIDTH);
    const text = parsed.helpText ?? '';
    if (parsed.error !== undefined || parsed.selected !== undefined || text === '')
      throw new Error(`nsed ${[...words, '--help'].join(' ')} rendered no help text`);
    // As runCli prints it.
    texts[helpKey(words)] = text.endsWith('\n') ? text : `${text}\n`;
  }
  return texts;
}
