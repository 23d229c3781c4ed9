import { describe, expect, it } from 'vitest';
import type { NsedEvent } from '../../src/events/events.js';
import { createRenderer } from '../../src/output/renderer.js';
import { memoryIO, settle } from '../terminal/memory-io.js';
import { candidate, finish, render, script, turnStart } from './script.js';

const error: NsedEvent = {
  type: 'error',
  code: 'server',
  exit_code: 5,
  message: 'the deliberation failed',
  verdict: null,
  gate: null,
  status: null,
};

describe('final output', () => {
  it('writes nothing until finish, then the answer and a newline', async () => {
    const { io, stdout, stderr } = memoryIO();
    const renderer = await createRenderer('final', io);
    for (const e of script.slice(0, -1)) renderer.onEvent(e);
    await settle();
    expect(stdout.text).toBe('');
    renderer.onEvent(finish);
    await renderer.close();
    await settle();
    expect(stdout.text).toBe('Hello, world.\n');
    expect(stderr.text).toBe('');
  });

  it('does not double a trailing newline', async () => {
    const { io, stdout } = memoryIO();
    await render('final', io, [turnStart, { ...finish, content: 'done\n' } as NsedEvent]);
    expect(stdout.text).toBe('done\n');
  });

  it('writes nothing at all when the turn fails', async () => {
    const { io, stdout, stderr } = memoryIO();
    await render('final', io, [...script.slice(0, -1), error]);
    expect(stdout.text).toBe('');
    expect(stderr.text).toBe('');
  });
});

describe('json output', () => {
  it('writes one object when the turn ends, with scored rounds and injections', async () => {
    const { io, stdout, stderr } = memoryIO();
    const result = {
      type: 'tool-result' as const,
      id: 'c1',
      name: 'search',
      content: 'found',
      exit_code: 0,
      status: 'ok' as const,
      duration_ms: 12,
    };
    await render('json', io, [
      ...script.slice(0, -1),
      { type: 'tool-call', id: 'c1', name: 'search', arguments: '{"q":"x"}' },
      result,
      finish,
    ]);
    expect(stdout.text.endsWith('}\n')).toBe(true);
    expect(stdout.text.split('\n')).toHaveLength(2);
    expect(JSON.parse(stdout.text)).toEqual({
      session: 's1',
      turn: 't2',
      job_id: 'job-1',
      policy: 'nsed:deep',
      agents: null,
      content: 'Hello, world.',
      // One proposal, no ballots and no stand-in counts: who voted is not known, never "complete".
      council: { status: 'unknown', asked: 1, answered: null, timed_out: null, synthetic_share: null },
      reasoning: 'Round 1 complete — convergence: 45%',
      rounds: [
        {
          round: 1,
          total_rounds: 5,
          progress: 0.2,
          scored: true,
          candidates: [candidate('CortexB', 0.31), candidate('CortexA', 0.4666), candidate('CortexC', 0.12)],
        },
        { round: 2, total_rounds: 5, progress: 0.4, scored: true, candidates: [candidate('CortexA', 0.9)] },
      ],
      injections: [{ message: 'focus on\nlatency', round: 2, sequence: 1 }],
      tool_calls: [{ id: 'c1', name: 'search', arguments: '{"q":"x"}' }],
      tool_results: [{ id: 'c1', name: 'search', content: 'found', exit_code: 0, status: 'ok', duration_ms: 12 }],
      finish_reason: 'stop',
      status: 'complete',
      error: null,
      verdict: null,
      gate: null,
      // No usage event came: every figure unknown, never 0.
      usage: { input_tokens: null, output_tokens: null, cost_usd: null, cost_source: 'unknown' },
    });
    expect(stderr.text).toBe('');
  });

  it('takes the job id from the job event when finish carries none', async () => {
    const { io, stdout } = memoryIO();
    await render('json', io, [turnStart, { type: 'job', job_id: 'job-9' }, { ...finish, job_id: null } as NsedEvent]);
    expect(JSON.parse(stdout.text)).toMatchObject({ job_id: 'job-9' });
  });

  it('writes the one object when the turn fails too: its status, the error and what had arrived', async () => {
    const { io, stdout } = memoryIO();
    await render('json', io, [...script.slice(0, -1), { ...error, status: 'failed' } as NsedEvent]);
    expect(stdout.text.split('\n')).toHaveLength(2);
    expect(JSON.parse(stdout.text)).toMatchObject({
      session: 's1',
      status: 'failed',
      error: { code: 'server', exit_code: 5, message: 'the deliberation failed' },
      content: 'Hello, world.',
      finish_reason: null,
      verdict: null,
      gate: null,
    });
  });

  it('writes nothing for an error before any turn started (the command reports it)', async () => {
    const { io, stdout } = memoryIO();
    await render('json', io, [error]);
    expect(stdout.text).toBe('');
  });
});
