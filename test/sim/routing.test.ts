import { describe, expect, it } from 'vitest';
import type { ChatCompletion, NsedInjected } from '../../src/protocol/wire.js';
import { JobRegistry } from '../../src/sim/jobs.js';
import { contentOf, deltas, getJson, post, readSse, sim } from '../harness/sse.js';

const THREAD = { 'x-opencode-session': 'ses_example' };
const first = { model: 'nsed:deep', stream: true, messages: [{ role: 'user', content: 'Design a distributed cache' }] };
const followUp = (stream: boolean) => ({
  model: 'nsed:deep',
  stream,
  messages: [
    { role: 'user', content: 'Design a distributed cache' },
    { role: 'user', content: 'Focus on memory safety over throughput' },
  ],
});

async function statusOf(url: string, id: string): Promise<string> {
  const r = await getJson(`${url}/deliberation/${id}/result`);
  return (r.body as { status: string }).status;
}

describe('x-opencode-session routing (protocol §6.2)', () => {
  it('with no prior job, a stream starts a new job under the thread base', async () => {
    const s = await sim();
    const r = await readSse(await post(`${s.url}/v1/chat/completions`, first, THREAD));
    const id = r.headers.get('x-nsed-session-id') ?? '';
    expect(id).toMatch(/^oc-ses_example-\d{13}$/);
    expect(deltas(r.chunks)[0]?.nsed_session_id).toBe(id);
    expect(r.done).toBe(true);
  });

  it('with no prior job, a non-streaming request starts a new job and blocks for its answer', async () => {
    const s = await sim();
    const res = await post(`${s.url}/v1/chat/completions`, { ...first, stream: false }, THREAD);
    const id = res.headers.get('x-nsed-session-id') ?? '';
    expect(id).toMatch(/^oc-ses_example-\d{13}$/);
    expect(((await res.json()) as ChatCompletion).choices[0]?.message.content).toMatch(/^## /);
    expect(await statusOf(s.url, id)).toBe('completed');
  });

  it('with a running job, stream: false injects the last user message and blocks for that job (§6.3)', async () => {
    const s = await sim({ hold: true });
    const res1 = await post(`${s.url}/v1/chat/completions`, first, THREAD);
    const id = res1.headers.get('x-nsed-session-id') ?? '';
    const stream1 = readSse(res1);
    s.control.release(id, 2);
    await s.control.parked(id);
    expect(await statusOf(s.url, id)).toBe('running');
    const pending = post(`${s.url}/v1/chat/completions`, followUp(false), THREAD);
    await s.control.injected(id);
    s.control.release(id);
    const res2 = await pending;
    expect(res2.headers.get('x-nsed-session-id')).toBe(id);
    const answer = ((await res2.json()) as ChatCompletion).choices[0]?.message.content ?? '';
    const r1 = await stream1;

    const injected = deltas(r1.chunks).flatMap((d) => (d.nsed_injected ? [d.nsed_injected] : [])) as NsedInjected[];
    expect(injected).toHaveLength(1);
    expect(injected[0]?.message).toBe('Focus on memory safety over throughput');
    expect(injected[0]?.sequence).toBe(1);
    // It lands at a phase boundary: the very next event opens a phase of the same round.
    const at = deltas(r1.chunks).findIndex((d) => d.nsed_injected !== undefined);
    const next = deltas(r1.chunks)[at + 1]?.reasoning_content ?? '';
    const round = injected[0]?.round ?? 0;
    expect(next).toMatch(new RegExp(`^(Round ${round}/5 — proposals|Round ${round} — evaluations|Consensus)`));
    expect(answer).toBe(contentOf(r1.chunks));
    expect(answer).toContain('Focus on memory safety over throughput');
    const jobs = (await getJson(`${s.url}/deliberations`)).body as { jobs: unknown[] };
    expect(jobs.jobs).toHaveLength(1);
  });

  it('with a running job, stream: true injects and attaches with a full replay from the start', async () => {
    const s = await sim({ hold: true });
    const res1 = await post(`${s.url}/v1/chat/completions`, first, THREAD);
    const id = res1.headers.get('x-nsed-session-id') ?? '';
    const stream1 = readSse(res1);
    // A few phases in, so the attached stream has history to replay.
    s.control.release(id, 3);
    await s.control.parked(id);
    const res2 = await post(`${s.url}/v1/chat/completions`, followUp(true), THREAD);
    expect(res2.headers.get('x-nsed-session-id')).toBe(id);
    await s.control.injected(id);
    s.control.release(id);
    const [r1, r2] = await Promise.all([stream1, readSse(res2)]);
    expect(r2.data).toEqual(r1.data);
    expect(deltas(r2.chunks)[0]).toEqual({ role: 'assistant', nsed_session_id: id });
    expect(deltas(r2.chunks).filter((d) => d.nsed_injected)).toHaveLength(1);
    expect(contentOf(r2.chunks)).toContain('Focus on memory safety over throughput');
  });

  it('with a completed job, a stream starts a fresh job with a new id under the same base', async () => {
    const s = await sim();
    const a = await readSse(await post(`${s.url}/v1/chat/completions`, first, THREAD));
    const b = await readSse(await post(`${s.url}/v1/chat/completions`, followUp(true), THREAD));
    const idA = a.headers.get('x-nsed-session-id');
    const idB = b.headers.get('x-nsed-session-id') ?? '';
    expect(idB).not.toBe(idA);
    expect(idB).toMatch(/^oc-ses_example-\d{13}(-\d+)?$/);
    expect(deltas(b.chunks).some((d) => d.nsed_injected)).toBe(false);
    expect(contentOf(b.chunks)).toMatch(/^## Focus on memory safety over throughput/);
  });

  it('with a failed job, a non-streaming request starts a fresh job and blocks for it', async () => {
    const s = await sim();
    const a = await readSse(
      await post(`${s.url}/v1/chat/completions`, first, { ...THREAD, 'x-nsed-sim-fault': 'fail-at-round=1' }),
    );
    const idA = a.headers.get('x-nsed-session-id') ?? '';
    expect(await statusOf(s.url, idA)).toMatch(/^failed: /);
    const res = await post(`${s.url}/v1/chat/completions`, followUp(false), THREAD);
    const idB = res.headers.get('x-nsed-session-id') ?? '';
    expect(idB).not.toBe(idA);
    expect(res.status).toBe(200);
    expect(await statusOf(s.url, idB)).toBe('completed');
  });

  it('mints room-<8 hex> ids without the header, and never reuses one thread id within a millisecond', async () => {
    const s = await sim();
    const res = await post(`${s.url}/v1/chat/completions`, { ...first, stream: false, model: 'nsed:fast' });
    expect(res.headers.get('x-nsed-session-id')).toMatch(/^room-[0-9a-f]{8}$/);
    const registry = new JobRegistry(() => 0, 1000);
    expect(registry.mintThreadJobId('oc-x', 1700000000000)).toBe('oc-x-1700000000000');
    expect(registry.mintThreadJobId('oc-x', 1700000000000)).toBe('oc-x-1700000000000-1');
    expect(registry.mintThreadJobId('oc-x', 1700000000000)).toBe('oc-x-1700000000000-2');
    expect(registry.mintThreadJobId('oc-x', 1700000000001)).toBe('oc-x-1700000000001');
  });

  it('replaces characters that are not allowed in ids when deriving the thread base', async () => {
    const s = await sim();
    const res = await post(
      `${s.url}/v1/chat/completions`,
      { ...first, stream: false, model: 'nsed:fast' },
      { 'x-opencode-session': 'a.b c' },
    );
    expect(res.headers.get('x-nsed-session-id')).toMatch(/^oc-a_b_c-\d{13}$/);
  });
});
