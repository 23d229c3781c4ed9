import { usageError } from '../../errors.js';
import type { CommandDef } from '../command.js';
import { flagValues, type FlagDef } from '../shared/flag-def.js';
import { givenByFlag } from '../../run/settings.js';
import {
  parseSessionTarget,
  readTarget,
  SESSION_ID_POSITIONAL,
  SESSION_TARGET_FLAGS,
  type SessionTarget,
} from '../shared/session-target.js';

export interface ShowOptions {
  target: SessionTarget;
  /** Add the recorded rounds: candidates, scores and claim verdicts. */
  rounds: boolean;
  /** Add each answer's ballots: who voted how on the chosen proposal, and the trust figures. */
  ballots: boolean;
  json: boolean;
}

const FLAGS = [
  {
    name: 'rounds',
    type: 'boolean',
    default: false,
    describe: 'add the recorded rounds: on a terminal a picture of scores and convergence, then every claim',
  },
  {
    name: 'ballots',
    type: 'boolean',
    default: false,
    describe:
      "add each answer's ballots: every evaluator's stance, score and claim verdicts on the chosen proposal, stand-ins marked, and the agreement",
  },
  {
    name: 'json',
    type: 'boolean',
    default: false,
    describe: 'the session as a JSON document, as export --format json writes it (also -o json)',
  },
] as const satisfies readonly FlagDef[];

/**
 * `nsed sessions show ID|--last`: the transcript (paged on a terminal); --json or -o json the
 * documented session object; -o ndjson the session as the live event schema (as export writes
 * it); -o final only the last answer.
 */
export const show: CommandDef<ShowOptions> = {
  command: 'show [id]',
  describe: 'print a session: every turn with its role, policy, job and time',
  positionals: [SESSION_ID_POSITIONAL],
  flags: [...SESSION_TARGET_FLAGS, ...FLAGS],
  examples: [
    ['nsed sessions show --last --rounds', 'who led each round, and whether the council agreed'],
    ["nsed sessions show 20261130 --json | jq -r '.turns[-1].content'", 'the last answer'],
  ],
  fast: { positional: 'id' },
  parse: (argv, settings) => {
    const f = flagValues(FLAGS, argv);
    // -o is a global setting, read once with the others; only -o on this command line, beside --json, asks for two outputs.
    const output = givenByFlag(settings.output);
    if (f.json && (output === 'ndjson' || output === 'final')) {
      throw usageError(`--json and -o ${output} ask for two different outputs`, 'pick one');
    }
    return {
      target: parseSessionTarget(argv, { positional: true }),
      rounds: f.rounds,
      ballots: f.ballots,
      json: f.json,
    };
  },
  run: async (opts, ctx) => {
    const [{ sessionDocument }, { renderTranscript }, { inertJson }, { writeStdout }] = await Promise.all([
      import('../../output/export/json.js'),
      import('../../output/session-show.js'),
      import('../../output/export/inert-json.js'),
      import('../../output/session-write.js'),
    ]);
    const mode = ctx.globals.settings.output.value;
    // The rounds and ballots beside the transcript are read only when shown: a plain transcript
    // (and `-o final`) reads the session's file alone (docs/history.md).
    const rounds = opts.rounds || opts.ballots || opts.json || mode === 'json' || mode === 'ndjson';
    const session = await readTarget(ctx, opts.target, { shown: true, rounds });
    if (mode === 'ndjson') {
      // The ndjson export alone: formats.js would pull the HTML report and markdown-it into the
      // listing's fast bundle (dist/fast.cjs), which every `sessions ls` compiles.
      await writeStdout(ctx.io, (await import('../../output/export/ndjson.js')).ndjsonExport(session));
      return 0;
    }
    // The transcript shows rounds only with --rounds; json and final keep the whole document.
    const transcript = !(opts.json || mode === 'json' || mode === 'final');
    const doc = sessionDocument(session, { rounds: !transcript || opts.rounds });
    if (mode === 'final') {
      const last = doc.turns.findLast((t) => t.role === 'assistant');
      if (last === undefined)
        throw usageError(`session ${doc.id} has no answer yet`, `see it with 'nsed sessions show ${doc.id}'`);
      const { sanitizeForTerminal } = await import('../../terminal/sanitize.js');
      const text = ctx.io.stdoutIsTTY ? sanitizeForTerminal(last.content) : last.content;
      await writeStdout(ctx.io, text.endsWith('\n') ? text : `${text}\n`);
      return 0;
    }
    if (opts.json || mode === 'json') {
      await writeStdout(ctx.io, inertJson(doc));
      return 0;
    }
    const terminal = ctx.io.stdoutIsTTY;
    let paint;
    if (terminal && ctx.io.color) {
      const [{ paintWith }, { createStyle }] = await Promise.all([
        import('../../output/round-picture.js'),
        import('../../terminal/style.js'),
      ]);
      paint = paintWith(createStyle(ctx.io));
    }
    const text = renderTranscript(doc, {
      rounds: opts.rounds,
      ballots: opts.ballots,
      terminal,
      now: ctx.clock.now(),
      ...(paint === undefined ? {} : { paint }),
    });
    if (terminal && (await (await import('../../terminal/pager.js')).page(ctx.io, ctx.env, text))) return 0;
    await writeStdout(ctx.io, text);
    return 0;
  },
};
