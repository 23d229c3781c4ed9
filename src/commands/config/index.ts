import type { CommandGroup } from '../command.js';
import { get } from './get.js';
import { list } from './list.js';
import { pathCommand } from './path.js';
import { set } from './set.js';
import { unset } from './unset.js';

/** `nsed config get|set|unset|list|path`: the defaults kept in the config file. */
export const config: CommandGroup = {
  command: 'config',
  describe: 'read and change the defaults in the config file (flags and environment still win)',
  subcommands: [get, set, unset, list, pathCommand],
};
