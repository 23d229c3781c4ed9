import type { PolicyInfo } from '../protocol/wire.js';
import type { CommandDef } from './command.js';
import { flagValues, type FlagDef } from './shared/flag-def.js';

export interface PoliciesOptions {
  tag: string | undefined;
  /** Print the cached tags, one per line, without asking the orchestrator (completion scripts). */
  cached: boolean;
}

const FLAGS = [
  { name: 'tag', type: 'string', describe: 'only policies with this tag' },
  {
    name: 'cached',
    type: 'boolean',
    default: false,
    hidden: true,
    describe: 'print the cached tags (for completion)',
  },
] as const satisfies readonly FlagDef[];

/** `nsed policies [--tag T]`: the orchestrator's policies (`GET /policies`), the names `-p` takes. */
export const policies: CommandDef<PoliciesOptions> = {
  command: 'policies',
  describe: "list the orchestrator's policies (what -p takes)",
  flags: FLAGS,
  examples: [
    ['nsed policies', 'a table on a terminal, tab-separated lines in a pipe'],
    ["nsed policies -o json | jq -r '.[].tags[]'", 'every tag -p accepts'],
  ],
  parse: (argv) => {
    const f = flagValues(FLAGS, argv);
    return { tag: f.tag, cached: f.cached };
  },
  run: async (opts, ctx) => {
    const [{ resolveHome }, cache] = await Promise.all([import('../session/index.js'), import('../session/index.js')]);
    if (opts.cached) {
      let home: string;
      try {
        home = resolveHome(ctx.env, ctx.globals.settings.home.value);
      } catch {
        return 0;
      }
      const tags = await cache.readPolicyCache(home, ctx.clock.now());
      ctx.io.stdout.write(tags.map((t) => `${t}\n`).join(''));
      return 0;
    }
    const { fetchListing, printListing } = await import('./shared/listing.js');
    const { items: list, orchestrator } = await fetchListing(ctx, (client, signal) =>
      client.policies({ signal, ...(opts.tag === undefined ? {} : { tag: opts.tag }) }),
    );
    // The orchestrator may ignore ?tag=; filtering here too keeps the promise of --tag.
    const shown = opts.tag === undefined ? list : list.filter((p) => p.tags.includes(opts.tag ?? ''));
    if (opts.tag === undefined) {
      try {
        await cache.writePolicyCache(resolveHome(ctx.env, ctx.globals.settings.home.value), {
          url: orchestrator,
          tags: list.flatMap((p) => p.tags),
          now: ctx.clock.now(),
        });
      } catch {
        // No store root (HOME unset): completion simply offers nothing.
      }
    }
    const none = opts.tag === undefined ? 'the orchestrator has no policies' : `no policy has the tag '${opts.tag}'`;
    await printListing(ctx, shown, POLICY_COLUMNS, none);
    return 0;
  },
};

const POLICY_COLUMNS = [
  { header: 'ID', cell: (p: PolicyInfo) => p.policy_id, max: 13 },
  { header: 'NAME', cell: (p: PolicyInfo) => p.name, max: 30 },
  { header: 'TAGS', cell: (p: PolicyInfo) => p.tags.join(','), max: 40 },
  { header: 'ROUNDS', cell: (p: PolicyInfo) => String(p.max_rounds), align: 'right' as const },
  { header: 'EFFORT', cell: (p: PolicyInfo) => String(p.effort), align: 'right' as const },
  { header: 'MODE', cell: (p: PolicyInfo) => p.mode ?? 'deliberation' },
];
