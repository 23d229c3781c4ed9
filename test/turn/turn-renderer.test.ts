// Where a turn's events go (src/turn/turn-renderer.ts): the output mode's renderer, or nowhere at
// all for a turn nobody watches (a batch item, whose result line is made from the turn's result).
import { describe, expect, it } from 'vitest';
import type { NsedEvent } from '../../src/events/events.js';
import type { Context } from '../../src/run/context.js';
import { turnRenderer } from '../../src/turn/turn-renderer.js';
import { memoryIO, settle } from '../terminal/memory-io.js';

const FINISH: NsedEvent = {
  type: 'finish',
  finish_reason: 'stop',
  content: 'the council answered',
  session: '20261206-0a1b2c3d',
  turn: 't1',
  job_id: 'job-1',
  verdict: null,
  gate: null,
};

/** What `-o final` under `renderer` leaves on stdout for one finished turn. */
async function shown(renderer: Context['renderer']): Promise<string> {
  const mem = memoryIO();
  // The three fields turnRenderer reads; the rest of a Context plays no part in where events go.
  const ctx = { renderer, io: mem.io, globals: { settings: { output: { value: 'final' } } } } as unknown as Context;
  const r = await turnRenderer(ctx, {});
  r.onEvent(FINISH);
  await r.close();
  await settle();
  return mem.stdout.text;
}

describe('where a turn shows its events', () => {
  it('the output mode shows the answer when the caller names no renderer', async () => {
    expect(await shown(undefined)).toBe('the council answered\n');
  });

  it('a turn that shows nothing writes nothing, where its output mode would have written the answer', async () => {
    expect(await shown('none')).toBe('');
  });
});
