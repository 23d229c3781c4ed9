import { usageError } from '../errors.js';
import type { CommandDef } from './command.js';
import { flagValues, positionalValues, type FlagDef, type PositionalDef } from './shared/flag-def.js';
import { SESSION_TARGET_CONFLICTS, SESSION_TARGET_TABLE } from './shared/session-target.js';
import type { WatchTarget } from '../turn/watch/watch-target.js';

export interface WatchOptions {
  target: WatchTarget;
  /** --agent: the agents whose candidates the round events keep; empty for all. */
  agents: string[];
}

/** The flags of `nsed watch`. A repeated string flag collects a list; an array flag would swallow a job id after it. */
const FLAGS = [
  ...SESSION_TARGET_TABLE,
  {
    name: 'agent',
    type: 'string',
    repeatable: true,
    describe: "show only this agent's proposals, scores and claims (repeatable)",
    valueName: 'NAME',
    sample: 'CortexA',
  },
] as const satisfies readonly FlagDef[];

export const WATCH_FLAGS: readonly FlagDef[] = FLAGS;

const POSITIONALS = [
  { name: 'job', describe: 'a deliberation id, to follow without a session' },
] as const satisfies readonly PositionalDef[];

/**
 * `nsed watch [JOB] [-s ID | --last] [--agent NAME]...`: follow a running deliberation
 * read-only from any terminal. It takes no lock and writes nothing to the store (not even the
 * listing index), records no turn and answers no tool call: the run that started the job
 * records it. It ends when the job ends, with the job's outcome as its exit code.
 */
export const watch: CommandDef<WatchOptions> = {
  command: 'watch [job]',
  describe: 'follow a running deliberation read-only (records nothing; Ctrl-C only detaches)',
  positionals: POSITIONALS,
  flags: WATCH_FLAGS,
  conflicts: SESSION_TARGET_CONFLICTS,
  examples: [
    ['nsed watch --last', 'follow the latest session from a second terminal'],
    ['nsed watch --last --agent CortexA', "only CortexA's proposals, scores and claims"],
  ],
  parse: (argv) => {
    const { job } = positionalValues(POSITIONALS, argv);
    const f = flagValues(FLAGS, argv);
    const session = f.session;
    const last = f.last === true;
    if (job !== undefined && (session !== undefined || last))
      throw usageError('name a deliberation id or a session (-s ID, --last), not both');
    const target: WatchTarget =
      job !== undefined
        ? { kind: 'job', jobId: job }
        : session !== undefined
          ? { kind: 'id', id: session }
          : last
            ? { kind: 'last' }
            : (() => {
                throw usageError(
                  'name a deliberation id, or a session with -s ID or --last',
                  "list sessions with 'nsed sessions ls'",
                );
              })();
    const agents = f.agent;
    for (const a of agents) if (a.trim() === '') throw usageError('--agent needs an agent name');
    return { target, agents };
  },
  run: async (opts, ctx) => {
    const [{ followWatch }] = await Promise.all([import('../turn/watch/watch-target.js')]);
    return followWatch(ctx, opts.target, opts.agents);
  },
};
