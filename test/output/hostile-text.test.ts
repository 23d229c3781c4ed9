import { describe, expect, it } from 'vitest';
import type { NsedEvent } from '../../src/events/events.js';
import { OUTPUT_MODES } from '../../src/output/modes.js';
import { TERMINAL_CONTROL, escapeCorpus } from '../terminal/escape-corpus.js';
import { memoryIO } from '../terminal/memory-io.js';
import { candidate, lines, render, turnStart } from './script.js';

// An unterminated sequence would swallow the separators after it; sanitize.test.ts covers it alone.
const corpus = escapeCorpus.filter((c) => !c.name.startsWith('an unterminated'));
const payload = corpus.map((c) => c.payload).join(' | ');
const visible = corpus.map((c) => c.visible).join(' | ');
const answer = `# Title\n\tindented ${payload}\nend`;

/** Hostile strings everywhere the server supplies one, the answer split at awkward offsets. */
const hostile: NsedEvent[] = [
  { ...turnStart },
  { type: 'job', job_id: `job\x1b]0;t\x07-1` },
  {
    type: 'round',
    round: 1,
    total_rounds: 2,
    progress: 0.5,
    scored: true,
    candidates: [candidate(`Cortex\x1b[2J\u202eA`, 0.5)],
  },
  { type: 'injection', message: payload, round: 1, sequence: 1 },
  { type: 'reconnect', attempt: 1, reason: payload },
  { type: 'reconnect', attempt: 2, reason: 'unterminated \x1b]52;c;AAAA' },
  { type: 'finalized', chosen_agent_id: `\x1bcCortexA`, round: 2 },
  { type: 'tool-call', id: 'c1', name: `sh\u009b2J`, arguments: payload },
  ...[...answer.matchAll(/[\s\S]{1,7}/g)].map((m): NsedEvent => ({ type: 'text', text: m[0] })),
  {
    type: 'finish',
    finish_reason: 'stop',
    content: answer,
    session: 's1',
    turn: 't2',
    job_id: 'job-1',
    verdict: null,
    gate: null,
  },
];

describe('escape sequences from the server (reliability #78, C17)', () => {
  for (const mode of OUTPUT_MODES) {
    it(`never reach a terminal raw in ${mode} mode`, async () => {
      const { io, stdout, stderr } = memoryIO({ stdoutTTY: true, stderrTTY: true, env: { NO_COLOR: '1' } });
      await render(mode, io, hostile);
      expect(stdout.text).not.toMatch(TERMINAL_CONTROL);
      expect(stderr.text).not.toMatch(TERMINAL_CONTROL);
    });
  }

  it('leave the answer readable with LF and TAB intact in text mode on a terminal', async () => {
    const { io, stdout } = memoryIO({ stdoutTTY: true });
    await render('text', io, hostile);
    expect(stdout.text).toBe(`# Title\n\tindented ${visible}\nend\n`);
  });

  it('leave the answer readable with LF and TAB intact in final mode on a terminal', async () => {
    const { io, stdout } = memoryIO({ stdoutTTY: true });
    await render('final', io, hostile);
    expect(stdout.text).toBe(`# Title\n\tindented ${visible}\nend\n`);
  });

  it('pass through byte for byte when stdout is a file or pipe (`> a.md` holds the exact answer)', async () => {
    const text = memoryIO();
    await render('text', text.io, hostile);
    expect(text.stdout.text).toBe(`${answer}\n`);
    const final = memoryIO();
    await render('final', final.io, hostile);
    expect(final.stdout.text).toBe(`${answer}\n`);
  });

  it('are escaped as JSON in ndjson and json modes and parse back to the exact strings', async () => {
    const nd = memoryIO({ stdoutTTY: true });
    await render('ndjson', nd.io, hostile);
    const events = lines(nd.stdout.text).map((l) => JSON.parse(l) as { type: string; text?: string; message?: string });
    expect(
      events
        .filter((e) => e.type === 'text')
        .map((e) => e.text)
        .join(''),
    ).toBe(answer);
    expect(events.find((e) => e.type === 'injection')?.message).toBe(payload);
    const js = memoryIO({ stdoutTTY: true });
    await render('json', js.io, hostile);
    expect((JSON.parse(js.stdout.text) as { content: string }).content).toBe(answer);
  });
});
