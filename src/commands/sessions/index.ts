import type { CommandGroup } from '../command.js';
import { archive } from './archive.js';
import { exportCommand } from './export.js';
import { reindex } from './reindex.js';
import { ls } from './ls.js';
import { rm } from './rm.js';
import { search } from './search.js';
import { show } from './show.js';
import { stats } from './stats.js';
import { unarchive } from './unarchive.js';

/** `nsed sessions ls|show|search|stats|export|archive|unarchive|rm|reindex`: read and manage the local store. */
export const sessions: CommandGroup = {
  command: 'sessions',
  describe: 'list, search, sum up, show, export, archive and delete the sessions in the local store',
  subcommands: [ls, show, search, stats, exportCommand, archive, unarchive, rm, reindex],
};
