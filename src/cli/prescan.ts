import type { ParsedArgv } from '../commands/command.js';
import { OUTPUT_MODES } from '../output/modes.js';

/**
 * The words of `nsed sessions ls` as yargs would parse them, for the few plain shapes a shell
 * completion or a CI loop runs; anything else (another command, another flag, a repeated flag,
 * `--help`) gives undefined and goes to yargs. Loading and building the yargs parser was a third
 * of an empty `sessions ls` (bench/RESULTS.md). test/cli/prescan.test.ts holds this to the yargs
 * definitions: for every shape accepted here, the typed options equal those of the yargs parse.
 */
export function prescan(args: readonly string[]): ParsedArgv | undefined {
  if (args[0] !== 'sessions' || (args[1] !== 'ls' && args[1] !== 'list')) return undefined;
  // The defaults yargs fills in: the global options' and those of `sessions ls`. Output and the
  // idle timeout have none, so that the config file can supply them when no flag does.
  const argv: Record<string, unknown> = {
    _: ['sessions', args[1]],
    quiet: false,
    verbose: false,
    color: true,
    sim: false,
    json: false,
    ids: false,
  };
  const seen = new Set<string>();
  const once = (key: string): boolean => {
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  };
  for (let i = 2; i < args.length; i++) {
    const arg = args[i] ?? '';
    const eq = arg.startsWith('--') ? arg.indexOf('=') : -1;
    const flag = eq === -1 ? arg : arg.slice(0, eq);
    const next = (): string | undefined => {
      if (eq !== -1) return arg.slice(eq + 1);
      const v = args[i + 1];
      if (v === undefined || v === '' || v.startsWith('-')) return undefined;
      i++;
      return v;
    };
    switch (flag) {
      case '--json':
      case '--ids':
        if (eq !== -1 || !once(flag)) return undefined;
        argv[flag.slice(2)] = true;
        break;
      case '-q':
      case '--quiet':
        if (eq !== -1 || !once('quiet')) return undefined;
        argv['quiet'] = true;
        break;
      case '--no-color':
        if (eq !== -1 || !once('color')) return undefined;
        argv['color'] = false;
        break;
      case '--home': {
        const v = next();
        if (v === undefined || v === '' || !once('home')) return undefined;
        argv['home'] = v;
        break;
      }
      case '-o':
      case '--output': {
        const v = next();
        if (!OUTPUT_MODES.some((m) => m === v) || !once('output')) return undefined;
        argv['output'] = v;
        break;
      }
      default:
        return undefined;
    }
  }
  return argv;
}
