import type { CommandGroup } from '../command.js';
import { exportCommand } from './export.js';
import { ls } from './ls.js';
import { rm } from './rm.js';
import { show } from './show.js';

/** `nsed sessions ls|show|export|rm`: read and manage the local store. */
export const sessions: CommandGroup = {
  command: 'sessions',
  describe: 'list, show, export and delete the sessions in the local store',
  subcommands: [ls, show, exportCommand, rm],
};
