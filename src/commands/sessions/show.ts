import type { CommandDef } from '../command.js';

/** `nsed sessions show ID`: the transcript, or with --json the documented session object. */
export const show: CommandDef = {
  command: 'show <id>',
  describe: 'print a session: every turn with its role, policy, job and time',
  builder: (y) =>
    y
      .positional('id', { type: 'string', describe: 'session id (a unique prefix is enough)' })
      .option('rounds', { type: 'boolean', default: false, describe: 'add the recorded rounds: candidates, scores and claim verdicts' })
      .option('json', { type: 'boolean', default: false, describe: 'the session as a JSON document, as export --format json writes it (also -o json)' })
      .example('nsed sessions show 20261130 --rounds', 'the transcript with every recorded round')
      .example("nsed sessions show 20261130 --json | jq -r '.turns[-1].content'", 'the last answer'),
  run: async (env, argv) => {
    const [{ openStore }, { sessionDocument }, { renderTranscript }, { inertJson }, { writeStdout }] = await Promise.all([
      import('../shared/open-store.js'),
      import('../../output/export/json.js'),
      import('../../output/session-show.js'),
      import('../../output/export/inert-json.js'),
      import('../../output/session-write.js'),
    ]);
    const { ctx, globals } = env;
    const store = await openStore(env);
    const doc = sessionDocument(await store.read(await store.resolve(String(argv['id']))));
    const json = argv['json'] === true || globals.output === 'json';
    const text = json
      ? inertJson(doc)
      : renderTranscript(doc, { rounds: argv['rounds'] === true, terminal: ctx.io.stdoutIsTTY, now: ctx.clock.now() });
    await writeStdout(ctx.io, text);
    return 0;
  },
};
