import { usageError } from '../../errors.js';
import type { Context } from '../../run/context.js';
import { backendChoice, SearchIndex, type Progress } from '../../session/index.js';
import { canDrawLive, liveLine, type LiveLine } from '../../terminal/live-line.js';
import type { FlagDef } from './flag-def.js';

// What `sessions search`, `stats` and `ls` share: the --since flag and the search index they read.

export const SINCE_FLAG = {
  name: 'since',
  type: 'string',
  describe: 'only sessions created since DATE (2026-11-30, or an ISO time) or for the last N days or hours (7d, 12h)',
  valueName: 'WHEN',
  sample: '7d',
  emptyHint: 'give a date (2026-11-30) or a span (7d, 12h)',
} as const satisfies FlagDef;

const SPAN = /^(\d{1,5})([dh])$/;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** Checks a --since value's shape (parse: no clock yet); sinceIso resolves it. */
export function checkSince(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (SPAN.test(value) || DAY.test(value) || (value.includes('T') && !Number.isNaN(Date.parse(value)))) return value;
  throw usageError(
    `--since '${value.slice(0, 40)}' is neither a date nor a span`,
    'give a date (2026-11-30), an ISO time, or a span such as 7d or 12h',
  );
}

/** The ISO-8601 time a --since value names, by `now` for a span; a day starts at 00:00 UTC. */
export function sinceIso(value: string | undefined, now: Date): string | undefined {
  if (value === undefined) return undefined;
  const span = SPAN.exec(value);
  if (span !== null) {
    const hours = Number(span[1]) * (span[2] === 'd' ? 24 : 1);
    return new Date(now.getTime() - hours * 3_600_000).toISOString();
  }
  const at = new Date(DAY.test(value) ? `${value}T00:00:00.000Z` : value);
  if (Number.isNaN(at.getTime()))
    throw usageError(`--since '${value.slice(0, 40)}' is not a date`, 'give a date such as 2026-11-30');
  return at.toISOString();
}

/** How many session files a refresh reads between two redraws of its progress line. */
const PROGRESS_EVERY = 1_000;

/**
 * The search index of the run's store, its backend as NSED_SEARCH_INDEX asks. A refresh that
 * reads many session files (a first index of a large store takes a minute at 100,000) says how
 * far it has got on a live line on stderr, a terminal's only, taken off when it is done.
 */
export async function openIndex(ctx: Context): Promise<SearchIndex> {
  let line: LiveLine | undefined;
  const progress: Progress | undefined = canDrawLive(ctx.io)
    ? {
        every: PROGRESS_EVERY,
        report: ({ seen, total, done }) => {
          if (done) return line?.stop();
          line ??= liveLine(ctx.io.stderr);
          const text = `nsed: indexing sessions: ${seen.toLocaleString('en')} of ${total.toLocaleString('en')}`;
          line.draw((columns) => text.slice(0, Math.max(0, columns - 1)));
        },
      }
    : undefined;
  return SearchIndex.open(await ctx.store(), {
    backend: backendChoice(ctx.env),
    now: () => ctx.clock.now().getTime(),
    ...(progress === undefined ? {} : { progress }),
  });
}
