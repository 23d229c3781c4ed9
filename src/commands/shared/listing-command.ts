import type { NsedClient } from '../../api/index.js';
import type { Column } from '../../output/listing.js';
import type { CommandDef } from '../command.js';

/** What a listing command is: its words, the list it asks for, its columns and its empty note. */
export interface ListingSpec<T> {
  command: string;
  describe: string;
  examples: NonNullable<CommandDef['examples']>;
  ask(client: NsedClient, signal: AbortSignal): Promise<T[]>;
  columns: ReadonlyArray<Column<T>>;
  /** Said on stderr when the list is empty (listing.ts, printListing). */
  none: string;
}

/** A command with no flags of its own that lists what the orchestrator has (`agents`, `models`). */
export function listingCommand<T>(spec: ListingSpec<T>): CommandDef<Record<string, never>> {
  return {
    command: spec.command,
    describe: spec.describe,
    examples: spec.examples,
    parse: () => ({}),
    run: async (_opts, ctx) => {
      const { fetchListing, printListing } = await import('./listing.js');
      const { items } = await fetchListing(ctx, spec.ask);
      await printListing(ctx, items, spec.columns, spec.none);
      return 0;
    },
  };
}
