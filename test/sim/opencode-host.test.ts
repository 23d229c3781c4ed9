import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { ProfileName } from '../../src/sim/profile.js';
import { post, readSse, sim } from '../harness/sse.js';

/** The opencode.json docs/mcp.md gives (the `json` block after its `<!-- opencode.json -->` marker). */
function docsConfig(): {
  provider: Record<string, { options: { baseURL: string }; models: Record<string, unknown> }>;
  model: string;
  small_model: string;
} {
  const page = readFileSync(new URL('../../docs/mcp.md', import.meta.url), 'utf8');
  const m = /<!-- opencode\.json -->\n```json\n([\s\S]*?)\n```/.exec(page);
  expect(m, 'docs/mcp.md has no opencode.json block').not.toBeNull();
  return JSON.parse(m?.[1] ?? '{}') as ReturnType<typeof docsConfig>;
}

/** What opencode 1.18 sends besides the body, by its provider id (docs/protocol.md §6.2, measured). */
const headersFor = (providerId: string, session: string): Record<string, string> =>
  providerId.startsWith('opencode')
    ? { 'x-opencode-session': session }
    : { 'x-session-affinity': session, 'x-session-id': session };

/** opencode's title request: its own system prompt, the user's first message, streamed. */
const titleRequest = (model: string, question: string): Record<string, unknown> => ({
  model,
  stream: true,
  messages: [
    { role: 'system', content: 'You are a title generator. You output ONLY a thread title. Nothing else.' },
    { role: 'user', content: question },
  ],
});

/** opencode's main request for the same message, sent while the title request still runs. */
const mainRequest = (model: string, question: string): Record<string, unknown> => ({
  model,
  stream: true,
  messages: [
    { role: 'system', content: 'You are opencode, an interactive CLI tool that helps users with software tasks.' },
    { role: 'user', content: question },
  ],
});

const QUESTION = 'Should the session store move from Postgres to Redis?';
const modelOf = (ref: string): string => ref.slice(ref.indexOf('/') + 1);

describe.each<ProfileName>(['default', 'strict'])('opencode as the client (profile %s)', (profile) => {
  it("docs/mcp.md's set-up: provider id nsed, so the main request is a deliberation of its own, never the title's", async () => {
    const config = docsConfig();
    const [providerId] = Object.keys(config.provider);
    expect(providerId).toBe('nsed');
    expect(config.provider.nsed?.options.baseURL).toMatch(/\/v1$/);
    const s = await sim({ profile, hold: true });
    // Every model the set-up names is one the server lists.
    for (const ref of [config.model, config.small_model]) {
      expect(ref.startsWith('nsed/')).toBe(true);
      expect(Object.keys(config.provider.nsed?.models ?? {})).toContain(modelOf(ref));
      expect((await fetch(`${s.url}/v1/models/${encodeURIComponent(modelOf(ref))}`)).status).toBe(200);
    }
    // The worst case for routing: the same model for titles and answers.
    const model = modelOf(config.small_model);
    const headers = headersFor(providerId ?? '', 'ses_4f1c2b');
    const title = await post(`${s.url}/v1/chat/completions`, titleRequest(model, QUESTION), headers);
    const titleJob = await s.control.nextJob();
    const main = await post(`${s.url}/v1/chat/completions`, mainRequest(model, QUESTION), headers);
    const mainJob = await s.control.nextJob();
    expect(mainJob).not.toBe(titleJob);
    expect(main.headers.get('x-nsed-session-id')).toBe(mainJob);
    s.control.release(titleJob);
    s.control.release(mainJob);
    const [t, a] = await Promise.all([readSse(title), readSse(main)]);
    expect(t.done && a.done).toBe(true);
    expect((await s.control.ended(titleJob)).injected).toBe(0);
    expect((await s.control.ended(mainJob)).injected).toBe(0);
  });

  it('a provider id that starts with opencode sends x-opencode-session: the main request lands in the title job', async () => {
    const s = await sim({ profile, hold: true });
    const headers = headersFor('opencode-nsed', 'ses_4f1c2b');
    const title = await post(`${s.url}/v1/chat/completions`, titleRequest('nsed:fast', QUESTION), headers);
    const titleJob = await s.control.nextJob();
    const main = await post(`${s.url}/v1/chat/completions`, mainRequest('nsed:fast', QUESTION), headers);
    // The routing rule: a running job on the thread takes the request as an injection.
    expect(main.headers.get('x-nsed-session-id')).toBe(titleJob);
    expect((await s.control.injected(titleJob)).injected).toBe(1);
    s.control.release(titleJob);
    await Promise.all([readSse(title), readSse(main)]);
  });
});
