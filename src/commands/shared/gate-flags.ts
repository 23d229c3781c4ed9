import { GATE_NAMES, type GateName, type Gates } from '../../council/verdict.js';
import type { ParsedArgv } from '../command.js';
import { flagValues, type FlagDef } from './flag-def.js';
import { gateEntry, parseGatesFile } from '../../input/gates-file.js';
import { readFlagFile, type PromptContext } from '../../input/prompt.js';

/** The gate whose flag is not its name: the cost gate, whose plain name belongs to the cap. */
const GATE_FLAG = { max_cost: 'max-cost-gate' } as const;

/** The flag that sets a gate (the gates-file key is the gate's name). */
export const gateFlagOf = (name: GateName): string => (name === 'max-cost' ? GATE_FLAG.max_cost : name);

const GROUP = 'Gates (judge the completed turn; exit 12 failed, 13 inconclusive):';

/** `--gates FILE`: the gates from a file, the flags over them. */
const GATES_FILE_FLAG = {
  name: 'gates',
  type: 'string',
  group: GROUP,
  valueName: 'FILE',
  complete: 'file',
  sample: 'gates.json',
  emptyHint: 'e.g. --gates gates.json',
  describe: 'JSON file of gates: {"min-convergence": 0.8, "max-wrong": 0, ...}; a flag overrides its key',
} as const satisfies FlagDef;

/**
 * The gate flags of ask, continue, fork … PROMPT, resume and gate, in one place. Each is read as
 * a string so that `80%` and a bad value reach the one parser (gates-file.ts) with its wording.
 */
export const GATE_FLAGS: readonly FlagDef[] = [
  {
    name: 'min-convergence',
    type: 'string',
    group: GROUP,
    sample: '80%',
    describe: 'fail unless the final convergence is at least P (0-1, or a percentage: 80%)',
  },
  {
    name: 'max-wrong',
    type: 'string',
    group: GROUP,
    sample: '0',
    describe: 'fail when the chosen proposal has more than N claims judged wrong',
  },
  {
    name: 'max-contested',
    type: 'string',
    group: GROUP,
    sample: '1',
    describe: 'fail when the chosen proposal has more than N claims judged contested',
  },
  {
    name: 'min-score',
    type: 'string',
    group: GROUP,
    sample: '0.5',
    describe: "fail unless the chosen proposal's score is at least S",
  },
  {
    name: 'min-margin',
    type: 'string',
    group: GROUP,
    sample: '0.1',
    describe: 'fail unless the chosen proposal leads the runner-up by at least M',
  },
  {
    name: 'min-agreement',
    type: 'string',
    group: GROUP,
    sample: '0.4',
    describe:
      "fail unless the real evaluators agree on the chosen proposal's claims at least K (Fleiss' kappa, -1 to 1)",
  },
  {
    name: 'min-endorse',
    type: 'string',
    group: GROUP,
    sample: '2',
    describe: 'fail unless at least N real evaluators (or P% of them: 60%) agree with the chosen proposal',
  },
  {
    name: 'max-synthetic',
    type: 'string',
    group: GROUP,
    sample: '25%',
    describe:
      "fail when more than P of the final round's evaluations are synthetic stand-ins; above it (default 50%) a convergence gate is inconclusive",
  },
  {
    // Its own name: `--max-cost` is the cap that stops a deliberation (docs/ndjson.md §4c); this only judges.
    name: GATE_FLAG.max_cost,
    type: 'string',
    group: GROUP,
    sample: '0.50',
    describe:
      'fail when the turn cost more than USD dollars, judged after it ends (the gates-file key is max-cost; an unknown cost is inconclusive, never a pass)',
  },
  GATES_FILE_FLAG,
];

/** The gates as given: the flags' thresholds, checked, and the file still to read (parse does no I/O). */
export interface GateRequest {
  flags: Gates;
  file: string | undefined;
}

export function parseGateFlags(argv: ParsedArgv): GateRequest {
  const flags: Gates = {};
  // Every gate flag is a string (its rule is gates-file.ts's), read by its name from the one table.
  const given: Readonly<Record<string, unknown>> = flagValues(GATE_FLAGS, argv);
  for (const name of GATE_NAMES) {
    const flag = gateFlagOf(name);
    const raw = given[flag];
    if (raw === undefined) continue;
    const [key, n] = gateEntry(name, String(raw), `--${flag}`);
    flags[key] = n;
  }
  return { flags, file: flagValues([GATES_FILE_FLAG], argv).gates };
}

export const hasGates = (r: GateRequest): boolean => r.file !== undefined || Object.keys(r.flags).length > 0;

/**
 * The gates of this run, combined: the file's, then the flags' over them. Read before any request
 * is sent, so a bad file stops the run (exit 2; a missing one exit 3) and nothing started. Undefined: no gates.
 */
export async function loadGates(r: GateRequest, ctx: PromptContext): Promise<Gates | undefined> {
  if (!hasGates(r)) return undefined;
  let fromFile: Gates = {};
  if (r.file !== undefined) fromFile = parseGatesFile(await readFlagFile(r.file, '--gates', ctx), r.file);
  return { ...fromFile, ...r.flags };
}

/** The gate names as flags, for messages. */
export const gateFlagList = (): string =>
  GATE_FLAGS.filter((f) => f.name !== 'gates')
    .map((f) => `--${f.name}`)
    .join(', ');
