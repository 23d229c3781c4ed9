import { listedTool, toolListSize, type McpToolDef } from '../mcp/tool-defs.js';

const n = (x: number): string => x.toLocaleString('en-US');

/**
 * `nsed mcp --print-tools`: what each tool adds to the list a host sends its model on every
 * request, and the whole list (the JSON of tools/list) in bytes and estimated tokens.
 */
export function toolSizeLines(tools: readonly McpToolDef[]): string {
  const width = Math.max(...tools.map((t) => t.name.length), 'tool'.length);
  const rows = tools.map((t) => {
    const bytes = Buffer.byteLength(JSON.stringify(listedTool(t)), 'utf8');
    return `${t.name.padEnd(width)}  ${n(bytes).padStart(6)} bytes`;
  });
  const { bytes, tokens } = toolListSize(tools);
  const count = `${tools.length} tool${tools.length === 1 ? '' : 's'}`;
  return `${rows.join('\n')}\ntools/list: ${n(bytes)} bytes of JSON, about ${n(tokens)} tokens (${count})\n`;
}
