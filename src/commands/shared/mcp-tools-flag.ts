import { usageError } from '../../errors.js';
import { MCP_TOOL_NAMES, MCP_TOOLS, pickTools, type McpToolDef } from '../../mcp/tool-defs.js';
import type { FlagDef } from './flag-def.js';

/** `nsed mcp --tools`: the tools served, for a host whose model should see fewer. */
export const MCP_TOOLS_FLAG = {
  name: 'tools',
  type: 'string',
  env: 'NSED_MCP_TOOLS',
  emptyHint: `name tools, e.g. --tools deliberate,wait,verdict (of ${MCP_TOOL_NAMES.join(', ')})`,
  describe: 'serve only these tools, comma-separated (default: all)',
  valueName: 'LIST',
  sample: 'deliberate,wait',
} as const satisfies FlagDef;

/** `nsed mcp install --tools`: the same list, written into the host's entry as `nsed mcp --tools LIST`. */
export const INSTALL_TOOLS_FLAG = {
  name: 'tools',
  type: 'string',
  emptyHint: MCP_TOOLS_FLAG.emptyHint,
  describe: 'have the host start nsed mcp --tools LIST (default: all tools)',
  valueName: 'LIST',
  sample: 'deliberate,wait',
} as const satisfies FlagDef;

/**
 * The tools a list names (undefined: every tool). An unknown name, or a list naming none, is
 * exit 2 naming it and the list's source (--tools, or NSED_MCP_TOOLS when `fromEnv`).
 */
export function servedTools(list: string | undefined, fromEnv: boolean): McpToolDef[] {
  if (list === undefined) return [...MCP_TOOLS];
  const source = fromEnv ? 'NSED_MCP_TOOLS' : '--tools';
  const picked = pickTools(list);
  if ('unknown' in picked)
    throw usageError(
      `${source} names no tool '${picked.unknown.slice(0, 60)}'`,
      `the tools are ${MCP_TOOL_NAMES.join(', ')}`,
    );
  if (picked.tools.length === 0)
    throw usageError(`${source} names no tool`, `name some of ${MCP_TOOL_NAMES.join(', ')}`);
  return picked.tools;
}
