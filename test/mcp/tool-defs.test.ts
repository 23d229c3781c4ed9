import { describe, expect, it } from 'vitest';
import { MCP_TOOLS, WAIT_DEFAULT_S, WAIT_MAX_S } from '../../src/mcp/tool-defs.js';
import { SESSION_STATES } from '../../src/session/index.js';
import { GATE_NAMES } from '../../src/council/verdict.js';

const tool = (name: string) => {
  const t = MCP_TOOLS.find((x) => x.name === name);
  if (t === undefined) throw new Error(`no tool ${name}`);
  return t;
};
const props = (s: Record<string, unknown>): Record<string, Record<string, unknown>> =>
  s['properties'] as Record<string, Record<string, unknown>>;

describe('the MCP tool definitions', () => {
  it('bound every wait under the 60 s a host gives one request by default (reliability #211)', () => {
    expect(WAIT_DEFAULT_S).toBeLessThan(50);
    expect(WAIT_MAX_S).toBeLessThan(60);
    for (const name of ['deliberate', 'continue', 'fork', 'wait'])
      expect(props(tool(name).inputSchema)['timeout_s']?.['maximum'], name).toBe(WAIT_MAX_S);
  });

  it('take the gates and session states the CLI knows, by the same names', () => {
    expect(Object.keys(props(props(tool('deliberate').inputSchema)['gates'] ?? {}))).toEqual([...GATE_NAMES]);
    expect(props(tool('sessions').inputSchema)['state']?.['enum']).toEqual([...SESSION_STATES]);
  });

  it('name the result fields as -o json does, with usage in every turn result', () => {
    for (const name of ['deliberate', 'wait', 'continue', 'fork']) {
      const required = tool(name).outputSchema['required'] as string[];
      for (const f of ['session', 'job_id', 'status', 'done', 'content', 'verdict', 'gate', 'usage'])
        expect(required, name).toContain(f);
    }
  });

  it('give continue and fork the turn options of deliberate, the same schemas without the prose', () => {
    const withoutProse = (v: Record<string, unknown>): Record<string, unknown> => {
      const { description: _prose, ...rest } = v;
      return rest;
    };
    const turnOptions = props(tool('deliberate').inputSchema);
    for (const name of ['continue', 'fork']) {
      const own = props(tool(name).inputSchema);
      for (const [option, schema] of Object.entries(turnOptions)) {
        if (option === 'idempotency_key') continue;
        expect(own[option], `${name}.${option}`).toEqual(withoutProse(schema));
        expect(own[option]?.['description'], `${name}.${option}`).toBeUndefined();
      }
    }
  });
});
