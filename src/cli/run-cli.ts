import type { Argv } from 'yargs';
import {
  isGroup,
  type CommandDef,
  type CommandEntry,
  type CommandGroup,
  type ParsedArgv,
} from '../commands/command.js';
import { GLOBAL_FLAGS, GLOBAL_OPTION_NAMES, withGlobalOptions } from '../commands/global-options.js';
import { commands } from '../commands/index.js';
import { STDIN_MARKER } from '../input/prompt.js';
import { runSecrets, type ContextParts, type ProcessContext } from '../run/context.js';
import { commandBuilder } from '../commands/shared/build-command.js';
import { commandWords } from '../commands/shared/flag-def.js';
import { exitCodeEpilog } from '../docs/topics.js';
import { ExitCode, NsedError } from '../errors.js';
import { oneLine } from '../terminal/sanitize.js';
import { VERSION } from '../version.js';
import { helpWidth } from './help-width.js';
import { fastEntries, prescan, type FastEntry } from './prescan.js';
import { missingValue, flagsOfWords } from './missing-value.js';
import { reportError, runSelected, type Selected, type Streams as BaseStreams, type TtyProbe } from './run-command.js';

type Streams = BaseStreams & { stdout: { columns?: number } };

/**
 * Parses argv, builds the one Context of this run, runs the chosen command, prints any error as
 * `nsed: …` / `hint: …`, and returns the exit code. `parts` replaces the Context's lazy store or
 * connection (tests); `isTTY` answers the terminal questions without touching the streams.
 */
export async function runCli(
  args: string[],
  base: ProcessContext,
  streams: Streams,
  parts: ContextParts = {},
  isTTY?: TtyProbe,
): Promise<number> {
  args = args.map((a) => (a === '-' ? STDIN_MARKER : a));
  const missing = missingValue(args, flagsOfWords(args, commands, GLOBAL_FLAGS));
  // Before either parser: yargs would read the flag as absent or take the next flag's value.
  if (missing !== undefined) return reportError(missing, streams, base.env);
  const quick = prescan(args, FAST_ENTRIES);
  const parsed = quick !== undefined ? { selected: quick } : await parseWords(args, streams.stdout.columns);

  if (parsed.error !== undefined) {
    // yargs quotes the words it refused, which may be a URL with a token in it (docs/reliability.md #88).
    const message = runSecrets(base.env).redact(unknownOnce(parsed.error.message));
    streams.stderr.write(`nsed: ${oneLine(message, 300)}\n`);
    streams.stderr.write(`hint: run 'nsed ${commandWord(args)}--help' for usage\n`);
    return ExitCode.usage;
  }
  const { selected, helpText = '' } = parsed;
  if (selected === undefined) {
    if (helpText !== '') streams.stdout.write(helpText.endsWith('\n') ? helpText : `${helpText}\n`);
    return ExitCode.ok;
  }

  return runSelected(selected, base, streams, parts, isTTY);
}

/** The commands that opted in to the fast path (CommandDef.fast), by the words that name them. */
export const FAST_ENTRIES: readonly FastEntry[] = commands.flatMap((entry) =>
  isGroup(entry)
    ? [
        ...(entry.bare === undefined ? [] : fastEntries([], entry.bare)),
        ...entry.subcommands.flatMap((d) => fastEntries([entry.command], d)),
      ]
    : fastEntries([], entry),
);

interface Parsed {
  selected?: Selected;
  helpText?: string;
  error?: Error;
}

/** The yargs parse: the chosen command and its words, or help text, or a usage error. */
export async function parseWords(args: string[], columns: number | undefined): Promise<Parsed> {
  // Loaded here, not at the top: the prescan's runs never need it.
  const { default: yargs } = await import('yargs');
  const parser = buildParser(yargs(args), columns);
  const parsed: Parsed = {};
  try {
    // With a callback, yargs hands help and version text back instead of printing and exiting.
    await parser.parseAsync(
      args,
      {},
      (err: Error | null | undefined, argv: Record<string, unknown>, output: string) => {
        if (err) parsed.error = err;
        parsed.helpText = output;
        const def = !err && output === '' ? chosenCommand(argv) : undefined;
        if (def !== undefined) parsed.selected = { def, argv };
      },
    );
  } catch (err) {
    parsed.error = err instanceof Error ? err : new Error(String(err));
  }
  return parsed;
}

function buildParser(root: Argv, columns: number | undefined): Argv {
  let y = withGlobalOptions(root)
    .scriptName('nsed')
    .usage('nsed <command> [options]\n\nA command-line client for NSED deliberations.')
    .parserConfiguration({ 'parse-positional-numbers': false, 'halt-at-non-option': false, 'populate--': true })
    .strict()
    .exitProcess(false)
    .version(VERSION)
    .alias('version', 'V')
    .help()
    .alias('help', 'h')
    .wrap(helpWidth(columns))
    // nsed's own texts are English; yargs would translate only its own words ("Optionen:") by
    // LANG, and the bundle cannot find its locale files anyway. Help depends on nothing but the
    // width, which lets dist/fast.cjs carry it prerendered.
    .detectLocale(false)
    .demandCommand(1, 'name a command')
    .recommendCommands()
    .epilog(exitCodeEpilog())
    .fail((msg: string | undefined, err: Error | undefined) => {
      throw err ?? new NsedError('usage', msg ?? 'invalid arguments');
    });
  for (const entry of commands) {
    y = isGroup(entry) ? addGroup(y, entry) : addCommand(y, entry);
  }
  skipHelpCache(y);
  return y;
}

interface UsageInternals {
  getInternalMethods?: () => { getUsageInstance?: () => { cacheHelpMessage?: () => void } };
}

// After parsing a command's words yargs renders that command's whole help text in advance, to
// show it should the command fail (yargs gives every command a handler, even one registered
// without). nsed's own fail() never shows it, and the rendering (string-width over every cell)
// was 13 % of an empty `sessions ls`. `--help` renders through another path.
function skipHelpCache(y: Argv): void {
  const usage = (y as unknown as UsageInternals).getInternalMethods?.().getUsageInstance?.();
  if (usage?.cacheHelpMessage !== undefined) usage.cacheHelpMessage = () => undefined;
}

// The command is picked from the parsed words rather than through yargs handlers.
// A command's --help shows its own options first and the global ones in a group of their own.
function addCommand(y: Argv, def: CommandDef): Argv {
  return y.command([def.command, ...(def.aliases ?? [])], def.describe, commandBuilder(def, GLOBAL_OPTION_NAMES));
}

function addGroup(y: Argv, group: CommandGroup): Argv {
  return y.command(group.command, group.describe, (sub: Argv) => {
    let s = sub;
    // The bare command is the group's default ($0): its flags and positionals (`batch <items>`) are
    // read when no subcommand is named.
    if (group.bare !== undefined) {
      const positionals = group.bare.command.split(/\s+/).slice(1);
      s = s.command(
        ['$0', ...positionals].join(' '),
        group.bare.describe,
        commandBuilder(group.bare, GLOBAL_OPTION_NAMES),
      );
    }
    for (const def of group.subcommands) s = addCommand(s, def);
    if (group.bare !== undefined) return s;
    return s.demandCommand(
      1,
      `name a ${group.command} subcommand: ${group.subcommands.map((d) => d.command.split(' ')[0]).join(', ')}`,
    );
  });
}

/**
 * yargs reports an unknown `--bogus-flag` under both of its spellings ("Unknown arguments:
 * bogus-flag, bogusFlag"); each is named once, as the user typed it.
 */
export function unknownOnce(message: string): string {
  const m = /^Unknown arguments?: (.*)$/.exec(message);
  if (m === null) return message;
  const all = (m[1] ?? '').split(', ');
  const kebabToCamel = (s: string): string => s.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
  const kept = all.filter(
    (name) => !all.some((other) => other !== name && other.includes('-') && kebabToCamel(other) === name),
  );
  return `Unknown ${kept.length === 1 ? 'argument' : 'arguments'}: ${kept.join(', ')}`;
}

function names(entry: CommandEntry): string[] {
  return [entry.command.split(' ')[0] ?? '', ...('aliases' in entry ? (entry.aliases ?? []) : [])];
}

/** The command the parsed words name (`ask`, or `sessions ls`). */
function chosenCommand(argv: ParsedArgv): CommandDef | undefined {
  const words = commandWords(argv);
  const top = commands.find((c) => names(c).includes(words[0] ?? ''));
  if (top === undefined || !isGroup(top)) return top;
  return top.subcommands.find((d) => names(d).includes(words[1] ?? '')) ?? top.bare;
}

function commandWord(args: string[]): string {
  const first = args.find((a) => !a.startsWith('-'));
  return first !== undefined && commands.some((c) => c.command.split(' ')[0] === first) ? `${first} ` : '';
}
