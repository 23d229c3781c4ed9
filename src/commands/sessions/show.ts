import type { CommandDef } from '../command.js';

export interface ShowOptions {
  id: string;
  /** Add the recorded rounds: candidates, scores and claim verdicts. */
  rounds: boolean;
  json: boolean;
}

/** `nsed sessions show ID`: the transcript, or with --json the documented session object. */
export const show: CommandDef<ShowOptions> = {
  command: 'show <id>',
  describe: 'print a session: every turn with its role, policy, job and time',
  builder: (y) =>
    y
      .positional('id', { type: 'string', describe: 'session id (a unique prefix is enough)' })
      .option('rounds', { type: 'boolean', default: false, describe: 'add the recorded rounds: candidates, scores and claim verdicts' })
      .option('json', { type: 'boolean', default: false, describe: 'the session as a JSON document, as export --format json writes it (also -o json)' })
      .example('nsed sessions show 20261130 --rounds', 'the transcript with every recorded round')
      .example("nsed sessions show 20261130 --json | jq -r '.turns[-1].content'", 'the last answer'),
  parse: (argv) => ({ id: String(argv['id']), rounds: argv['rounds'] === true, json: argv['json'] === true }),
  run: async (opts, ctx) => {
    const [{ sessionDocument }, { renderTranscript }, { inertJson }, { writeStdout }] = await Promise.all([
      import('../../output/export/json.js'),
      import('../../output/session-show.js'),
      import('../../output/export/inert-json.js'),
      import('../../output/session-write.js'),
    ]);
    const store = await ctx.store();
    const doc = sessionDocument(await store.read(await store.resolve(opts.id)));
    const json = opts.json || ctx.globals.output === 'json';
    const text = json
      ? inertJson(doc)
      : renderTranscript(doc, { rounds: opts.rounds, terminal: ctx.io.stdoutIsTTY, now: ctx.clock.now() });
    await writeStdout(ctx.io, text);
    return 0;
  },
};
