import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MCP_TOOLS } from '../../src/mcp/tool-defs.js';
import type { ProfileName } from '../../src/sim/profile.js';
import { postSse, sim } from '../harness/sse.js';
import { schemaErrors } from './validator.js';

// Far beyond any test: a call here is answered by the test, or left pending when the test ends.
const HOLD = { toolWaitMs: 10 * 60_000 };

/**
 * The first request of a turn in the shape codex sends it as an MCP host with the simulator as
 * its model (built from codex's request fields, not a byte-for-byte capture): its own tools flat in `tools` (`type: "function"`, a freeform
 * `custom` apply_patch, `web_search`), and no MCP tool at all: those hide behind `tool_search`.
 */
const CODEX_REQUEST = JSON.parse(
  readFileSync(new URL('./fixtures/codex-responses-request.json', import.meta.url), 'utf8'),
) as Record<string, unknown> & { input: unknown[]; tools: Array<Record<string, unknown>> };

/** nsed mcp's tools as codex names and offers them once a search found them: `mcp__<server>__<tool>`. */
const NSED_TOOLS = MCP_TOOLS.map((t) => ({
  type: 'function',
  name: `mcp__nsed__${t.name}`,
  description: t.description,
  strict: false,
  parameters: t.inputSchema,
}));
const DELIBERATE = NSED_TOOLS.find((t) => t.name === 'mcp__nsed__deliberate');

type Item = Record<string, unknown>;

/** Sends one codex request (streamed, as codex sends it) and returns the output items of `response.completed`. */
async function turn(
  url: string,
  body: Record<string, unknown>,
): Promise<{ status: number; output: Item[]; job: string | null }> {
  const r = await postSse(`${url}/v1/responses`, body);
  const job = r.headers.get('x-nsed-session-id');
  if (r.status !== 200) return { status: r.status, output: [], job };
  const events = r.data.map((d) => JSON.parse(d) as { type: string; response?: { output: Item[] } });
  const completed = events.find((e) => e.type === 'response.completed');
  expect(completed, JSON.stringify(events.map((e) => e.type))).toBeDefined();
  return { status: r.status, output: completed?.response?.output ?? [], job };
}

const callIn = (output: Item[]): Item | undefined => output.find((i) => i.type === 'function_call');

describe.each<ProfileName>(['default', 'strict'])('codex as an MCP host reaches nsed mcp (profile %s)', (profile) => {
  it('searches with tool_search, takes the tools an additional_tools item offers, and calls deliberate', async () => {
    const s = await sim({ ...HOLD, profile });
    // 1. No nsed tool is offered, and the question asks for one: the council searches for it.
    const first = await turn(s.url, CODEX_REQUEST);
    expect(first.status).toBe(200);
    const search = callIn(first.output);
    expect(search).toMatchObject({ name: 'tool_search' });
    const searchArgs = JSON.parse(String(search?.arguments)) as Record<string, unknown>;
    const searchTool = CODEX_REQUEST.tools.find((t) => t.name === 'tool_search');
    expect(schemaErrors(searchTool?.parameters, searchArgs)).toEqual([]);
    expect(searchArgs.query).toBe('deliberate');

    // 2. codex answers the search and offers what it found as an `additional_tools` input item
    //    (store: false, so the whole input again): no 400, and the tool found is called.
    const afterSearch = [
      ...CODEX_REQUEST.input,
      { type: 'function_call', call_id: search?.call_id, name: 'tool_search', arguments: search?.arguments },
      {
        type: 'function_call_output',
        call_id: search?.call_id,
        output: 'Found 1 tool: mcp__nsed__deliberate (Ask the council)',
      },
      { type: 'additional_tools', tools: [DELIBERATE] },
    ];
    const second = await turn(s.url, { ...CODEX_REQUEST, input: afterSearch });
    expect(second.status).toBe(200);
    const call = callIn(second.output);
    expect(call).toMatchObject({ name: 'mcp__nsed__deliberate' });
    const args = JSON.parse(String(call?.arguments)) as Record<string, unknown>;
    expect(schemaErrors(DELIBERATE?.parameters, args)).toEqual([]);
    expect(String(args.question)).toContain('cache the session store in Redis');

    // 3. The tool's result comes back to the job that asked for it (the offer repeated, as codex
    //    repeats it): the answer is prose, and no further call is made.
    const third = await turn(s.url, {
      ...CODEX_REQUEST,
      input: [
        ...afterSearch,
        { type: 'function_call', call_id: call?.call_id, name: call?.name, arguments: call?.arguments },
        { type: 'function_call_output', call_id: call?.call_id, output: 'The council says: yes, with a 15 min TTL.' },
      ],
    });
    expect(third.status).toBe(200);
    if (profile === 'default') expect(third.job).toBe(second.job);
    expect(callIn(third.output)).toBeUndefined();
    expect(third.output.some((i) => i.type === 'message')).toBe(true);
  });

  it("the shell tool's optional fields stay empty when nothing asks for them", async () => {
    const s = await sim({ ...HOLD, profile });
    const input = [...CODEX_REQUEST.input.slice(0, -1), { role: 'user', content: 'Use the shell tool. run: ls -la' }];
    const call = callIn((await turn(s.url, { ...CODEX_REQUEST, input })).output);
    expect(call).toMatchObject({ name: 'shell' });
    expect(JSON.parse(String(call?.arguments))).toEqual({ command: ['ls', '-la'] });
  });

  it('tool_choice "required" is answered with a call, though the question names no tool', async () => {
    const s = await sim({ ...HOLD, profile });
    const input = [
      ...CODEX_REQUEST.input.slice(0, -1),
      { role: 'user', content: 'Should we cache the session store?' },
    ];
    const { status, output } = await turn(s.url, { ...CODEX_REQUEST, input, tool_choice: 'required' });
    expect(status).toBe(200);
    const call = callIn(output);
    expect(call).toBeDefined();
    const tool = CODEX_REQUEST.tools.find((t) => t.name === call?.name);
    expect(schemaErrors(tool?.parameters, JSON.parse(String(call?.arguments)))).toEqual([]);
  });

  it('an additional_tools item that is not a list of tools is a 400 naming the input', async () => {
    const s = await sim({ profile });
    const r = await postSse(`${s.url}/v1/responses`, {
      ...CODEX_REQUEST,
      input: [...CODEX_REQUEST.input, { type: 'additional_tools', tools: 'deliberate' }],
    });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ error: { param: 'input', message: expect.stringContaining('tools') as string } });
  });
});
