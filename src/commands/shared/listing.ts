import type { NsedClient } from '../../api/index.js';
import type { Context } from '../../run/context.js';
import { listingFormat, renderListing, type Column } from '../../output/listing.js';
import { writeStdout } from '../../output/session-write.js';

/** One list asked of the orchestrator (`agents`, `models`, `policies`); the connection closed whatever the answer. */
export async function fetchListing<T>(
  ctx: Context,
  ask: (client: NsedClient, signal: AbortSignal) => Promise<T[]>,
): Promise<{ items: T[]; orchestrator: string }> {
  const conn = await ctx.connect();
  try {
    return { items: await ask(conn.client, ctx.signal), orchestrator: conn.orchestrator };
  } finally {
    await conn.close();
  }
}

/**
 * Prints a discovery listing in the global output mode (output/listing.ts says how); an empty
 * one also gets `none` on stderr, except in JSON (where `[]` says it) and under --quiet.
 */
export async function printListing<T>(
  ctx: Context,
  items: readonly T[],
  columns: ReadonlyArray<Column<T>>,
  none: string,
): Promise<void> {
  const format = listingFormat(ctx.globals.settings.output.value, ctx.io.stdoutIsTTY);
  if (items.length === 0 && format !== 'json' && !ctx.io.quiet) ctx.io.stderr.write(`${none}\n`);
  await writeStdout(
    ctx.io,
    renderListing(items, columns, format, (i) => i),
  );
}
