// The tools run the CLI's own commands, whose errors and hints speak of commands and flags
// (`nsed resume -s ID`, `--agents`). A model reads them as the way on: said in its own terms,
// tool names and argument names, it can act on them; said as a command line it cannot.

import { flagLabel } from '../commands/shared/flag-def.js';
import { gateFlagOf } from '../commands/shared/gate-flags.js';
import { GATE_NAMES } from '../council/verdict.js';
import { gateArg, TURN_ARGS } from './turn-args.js';

/** A command line of a hint, and the tool call that does the same; ids are word characters, dots, colons and dashes. Longest first where they overlap. */
const COMMANDS: ReadonlyArray<readonly [RegExp, string]> = [
  [
    /\bnsed continue -s ([\w.:-]+) --tool-result ([\w.:-]+)=\S+( \(- for stdin\))?/g,
    'answer_tool_call with session "$1" and call_id "$2"',
  ],
  [
    /\bnsed tool-result -s ([\w.:-]+) (?:--call-id )?([\w.:-]+)/g,
    'answer_tool_call with session "$1" and call_id "$2"',
  ],
  [/\bnsed (?:resume|watch) -s ([\w.:-]+)/g, 'wait with session "$1"'],
  [/\bnsed (cancel|continue|fork|inject) -s ([\w.:-]+)/g, '$1 with session "$2"'],
  [/\bnsed sessions show ([\w.:-]+)/g, 'verdict with session "$1"'],
  [/\bnsed sessions ls\b(?: --\S+)*/g, 'sessions'],
  [/\bnsed ask\b/g, 'deliberate'],
];

/**
 * A flag, and the argument of the tools that stands for it: each turn flag's argument from the
 * one table (turn-args.ts), with its one-letter spelling; then the flags of the other tools.
 */
const FLAGS: ReadonlyArray<readonly [string, string]> = [
  ...TURN_ARGS.flatMap((a): Array<[string, string]> => [
    // As the flag's own messages name it (`-p/--policy is empty`): first, being the longest.
    [flagLabel(a.flag), a.name],
    [`--${a.flag.name}`, a.name],
    ...(a.flag.alias === undefined ? [] : [[`-${a.flag.alias}`, a.name] as [string, string]]),
  ]),
  // A gate flag sets one key of `gates` (`--max-cost-gate` is `gates.max-cost`).
  ...GATE_NAMES.map((n): [string, string] => [`--${gateFlagOf(n)}`, gateArg(n)]),
  ['--at', 'at'],
  ['--session', 'session'],
  ['-s', 'session'],
  ['--tool-result', 'answer_tool_call'],
  ['--no-wait', 'wait: false'],
];

const FLAG = new RegExp(
  `(?<![\\w-])(${[...new Set(FLAGS.map(([f]) => f))].map((f) => f.replace(/[-/]/g, '\\$&')).join('|')})(?![\\w-])`,
  'g',
);
const ARG = new Map(FLAGS);

/** `text` (an error's message or hint) with the CLI's command lines and flags in the tools' terms. */
export function inToolTerms(text: string): string {
  let out = text;
  for (const [re, to] of COMMANDS) out = out.replace(re, to);
  return out.replace(FLAG, (f) => ARG.get(f) ?? f);
}
