import { commands } from '../commands/index.js';
import { completionScript } from './completions.js';
import { withExitCodeTable } from './exit-code-table.js';
import { renderManPage } from './man.js';
import { withMcpToolReference } from './mcp-tools.js';
import { withOptionTables } from './readme-tables.js';
import { serverJson } from './server-json.js';

/**
 * A page of the manual (README.md or a docs/*.md) with the generated regions it holds rewritten:
 * its option tables from the flag tables, its exit-code table from the exit codes, and its MCP
 * tool reference from the tools' schemas (the rest is prose, left as it is).
 */
export function generatedManualPage(markdown: string): string {
  return withExitCodeTable(withMcpToolReference(withOptionTables(markdown, commands)));
}

/**
 * Every generated file, keyed by its path in the repository. scripts/gen-docs.mjs writes them
 * (`npm run docs`); the tests compare them with the committed copies, so a flag added to a
 * command without regenerating fails CI.
 */
export function generatedFiles(): Record<string, string> {
  return {
    'completions/nsed.bash': completionScript('bash', commands),
    'completions/nsed.zsh': completionScript('zsh', commands),
    'completions/nsed.fish': completionScript('fish', commands),
    'man/nsed.1': renderManPage(commands),
    'server.json': serverJson(),
  };
}
