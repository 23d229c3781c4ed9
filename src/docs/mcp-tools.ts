import { MCP_TOOLS, type JsonSchema } from '../mcp/tool-defs.js';

/** The manual's reference of the `nsed mcp` tools (docs/mcp.md), between `<!-- mcp-tools -->` and `<!-- /mcp-tools -->`. */
const REGION = /(<!-- mcp-tools -->\n)[\s\S]*?(<!-- \/mcp-tools -->)/;

/**
 * A page of the manual with the tool reference written from the tools' own schemas (src/mcp/tool-defs.ts),
 * the ones `tools/list` serves: one table row per argument, then what the result carries.
 */
export function withMcpToolReference(markdown: string): string {
  return markdown.replace(REGION, (_all, open: string, close: string) => `${open}${reference()}\n${close}`);
}

const cell = (text: string): string => text.replaceAll('|', '\\|').replaceAll('\n', ' ');

function typeOf(s: Record<string, unknown>): string {
  const t = s['type'];
  const base = Array.isArray(t) ? t.filter((x) => x !== 'null').join(' or ') : String(t ?? 'any');
  if (base === 'array') {
    const items = s['items'] as Record<string, unknown> | undefined;
    return `array of ${items === undefined ? 'any' : typeOf(items)}`;
  }
  if (Array.isArray(s['enum'])) return (s['enum'] as unknown[]).map((v) => `\`${String(v)}\``).join(' \\| ');
  return base;
}

/**
 * The tool that describes each argument first: continue and fork carry deliberate's turn options
 * without the prose (tool-defs.ts), and their rows point there.
 */
function describedIn(): Map<string, string> {
  const first = new Map<string, string>();
  for (const t of MCP_TOOLS)
    for (const [name, s] of Object.entries(
      (t.inputSchema['properties'] ?? {}) as Record<string, Record<string, unknown>>,
    ))
      if (typeof s['description'] === 'string' && !first.has(name)) first.set(name, t.name);
  return first;
}

function argumentRows(schema: JsonSchema, elsewhere: Map<string, string>): string[] {
  const props = (schema['properties'] ?? {}) as Record<string, Record<string, unknown>>;
  const required = new Set((schema['required'] ?? []) as string[]);
  return Object.entries(props).map(([name, s]) => {
    const bounds = [
      s['default'] === undefined ? '' : `default \`${JSON.stringify(s['default'])}\``,
      typeof s['minimum'] === 'number' && typeof s['maximum'] === 'number' ? `${s['minimum']}-${s['maximum']}` : '',
    ].filter((x) => x !== '');
    const owner = elsewhere.get(name);
    const prose =
      typeof s['description'] === 'string' ? s['description'] : owner === undefined ? '' : `as in \`${owner}\``;
    const what = [prose, ...bounds].filter((x) => x !== '');
    return `| \`${name}\`${required.has(name) ? ' (required)' : ''} | ${cell(typeOf(s))} | ${cell(what.join('; '))} |`;
  });
}

function reference(): string {
  const parts: string[] = [];
  const elsewhere = describedIn();
  for (const t of MCP_TOOLS) {
    parts.push(`#### \`${t.name}\`${t.readOnly ? ' (read-only)' : ''}`, '', t.description, '');
    const rows = argumentRows(t.inputSchema, elsewhere);
    if (rows.length > 0) parts.push('| argument | type | meaning |', '|---|---|---|', ...rows, '');
    const out = Object.keys((t.outputSchema['properties'] ?? {}) as Record<string, unknown>);
    parts.push(`Result (\`structuredContent\`): ${out.map((k) => `\`${k}\``).join(', ')}.`, '');
  }
  return parts.join('\n');
}
