import { describe, expect, it, vi } from 'vitest';
import type { NsedEvent } from '../../src/events/events.js';
import { createRenderer } from '../../src/output/renderer.js';
import { toJsonLine } from '../../src/output/ndjson.js';
import { memoryIO, settle } from '../terminal/memory-io.js';
import { finish, lines, render, script } from './script.js';

describe('ndjson output', () => {
  it('writes one parseable line per event with v=1 and seq counting up from 1', async () => {
    const { io, stdout, stderr } = memoryIO({ stdoutTTY: true, stderrTTY: true });
    await render('ndjson', io, script);
    expect(stdout.text.endsWith('\n')).toBe(true);
    const parsed = lines(stdout.text).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(parsed).toHaveLength(script.length);
    parsed.forEach((obj, i) => {
      expect(obj).toEqual({ v: 1, seq: i + 1, ...script[i] });
    });
    // stdout holds only the events; the progress a terminal's stderr shows never reaches it.
    expect(lines(stderr.text)).toContain('round 1/5 · 3 candidates · leader CortexA 0.47');
  });

  it('writes each event as it happens, not batched until the end', async () => {
    const { io, stdout } = memoryIO();
    const renderer = await createRenderer('ndjson', io);
    renderer.onEvent(script[0] as NsedEvent);
    await settle();
    expect(lines(stdout.text)).toHaveLength(1);
    renderer.onEvent(script[1] as NsedEvent);
    await settle();
    expect(lines(stdout.text)).toHaveLength(2);
    await renderer.close();
  });

  it('writes the events of one synchronous run (one network read) in one write, before the next await', async () => {
    const { io, stdout } = memoryIO();
    const writes = vi.spyOn(stdout, 'write');
    const renderer = await createRenderer('ndjson', io);
    for (const e of script.slice(0, 3)) renderer.onEvent(e as NsedEvent);
    expect(writes).not.toHaveBeenCalled();
    await Promise.resolve();
    expect(writes).toHaveBeenCalledTimes(1);
    renderer.onEvent(script[3] as NsedEvent);
    await renderer.close();
    expect(writes).toHaveBeenCalledTimes(2);
    expect(lines(stdout.text).map((l) => (JSON.parse(l) as { seq: number }).seq)).toEqual([1, 2, 3, 4]);
  });

  it('drops every event after the terminal one', async () => {
    const { io, stdout } = memoryIO();
    const err: NsedEvent = {
      type: 'error',
      code: 'interrupted',
      exit_code: 130,
      message: 'interrupted',
      verdict: null,
      gate: null,
      status: null,
    };
    await render('ndjson', io, [script[0] as NsedEvent, err, finish, { type: 'text', text: 'late' }, err]);
    const types = lines(stdout.text).map((l) => (JSON.parse(l) as { type: string; seq: number }).type);
    expect(types).toEqual(['turn-start', 'error']);
  });

  it('numbers each run from 1', async () => {
    const { io, stdout } = memoryIO();
    await render('ndjson', io, [script[0] as NsedEvent, finish]);
    await render('ndjson', io, [script[0] as NsedEvent, finish]);
    const seqs = lines(stdout.text).map((l) => (JSON.parse(l) as { seq: number }).seq);
    expect(seqs).toEqual([1, 2, 1, 2]);
  });
});

describe('toJsonLine', () => {
  it('escapes DEL, C1, BiDi and line separators that JSON.stringify leaves raw, and round-trips', () => {
    const text = 'a\u007f\u009b31m\u202e\u2028\u2029\u2066z';
    const line = toJsonLine({ text });
    expect(line).toBe('{"text":"a\\u007f\\u009b31m\\u202e\\u2028\\u2029\\u2066z"}\n');
    expect((JSON.parse(line) as { text: string }).text).toBe(text);
  });
});
