// What a turn and a session cost, wherever a person or a CI job reads it after the fact
// (docs/ndjson.md §4d): `sessions show` (text and --json), `sessions ls --json`, and the summary
// and JUnit exports. Answers are run against the simulator over real HTTP under its meter
// faults, so each place is seen with a cost the server reported, one nsed estimated from the
// /agents prices (meter=tokens), and one nobody knows (meter=none; the strict profile): unknown
// is said to be unknown and counted apart, never summed as 0 (docs/reliability.md #250).
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import MarkdownIt from 'markdown-it';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseGithubFile } from '../harness/github-files.js';
import { junitSchemaErrors } from '../harness/junit-schema.js';
import { useRig, withRig } from '../harness/rig.js';

interface Usage {
  input_tokens: number | null;
  output_tokens: number | null;
  cost_usd: number | null;
  cost_source: string;
}
interface Total {
  input_tokens: number | null;
  output_tokens: number | null;
  cost_usd: number | null;
  unknown_cost_turns: number;
  turns: number;
}
interface Doc {
  usage: Total;
  turns: Array<{ role: string; kind: string; usage: Usage | null }>;
}

const METER = { reported: [], estimated: ['all:meter=tokens'], unknown: ['all:meter=none'] } as const;
type Source = keyof typeof METER;
const SOURCES = Object.keys(METER) as Source[];

const rig = useRig();
/** One session of one answer per cost source, and one whose three answers have one each. */
const single = {} as Record<Source, string>;
let mixed = '';
let dir = '';

async function turn(args: string[], source: Source): Promise<{ session: string; usage: Usage }> {
  rig.sim.setFaults([...METER[source]]);
  try {
    const r = await rig.run([...args, '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    return JSON.parse(r.stdout) as { session: string; usage: Usage };
  } finally {
    rig.sim.setFaults([]);
  }
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'nsed-usage-'));
  for (const source of SOURCES) {
    const out = await turn(['ask', '-p', 'fast', `What does a ${source} answer cost?`], source);
    expect(out.usage.cost_source).toBe(source);
    single[source] = out.session;
  }
  mixed = (await turn(['ask', '-p', 'fast', 'Plan the database migration'], 'reported')).session;
  await turn(['continue', '-s', mixed, '-p', 'fast', 'Name the risks'], 'estimated');
  await turn(['continue', '-s', mixed, '-p', 'fast', 'Say what to test first'], 'unknown');
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const show = async (id: string, ...more: string[]): Promise<string> => {
  const r = await rig.run(['sessions', 'show', id, ...more]);
  expect(r.code, r.stderr).toBe(0);
  return r.stdout;
};
const documentOf = async (id: string): Promise<Doc> => JSON.parse(await show(id, '--json')) as Doc;
const exportOf = async (id: string, format: string): Promise<string> => {
  const r = await rig.run(['sessions', 'export', id, '--format', format]);
  expect(r.code, r.stderr).toBe(0);
  return r.stdout;
};
const answers = (doc: Doc): Array<Usage | null> =>
  doc.turns.filter((t) => t.role === 'assistant' && t.kind === 'message').map((t) => t.usage);
/** A dollar figure that reads as free: `$0`, `$0.0`, `$0.00`. */
const FREE = /\$0(?:\.0*)?(?![.\d])/;

describe('what a session cost, in sessions show and sessions ls', () => {
  it('--json gives each answer its usage, and the session a total of the known dollars with the unknown answer counted apart, never as 0 (reliability #250)', async () => {
    const doc = await documentOf(mixed);
    const [reported, estimated, unknown] = answers(doc);
    expect([reported?.cost_source, estimated?.cost_source, unknown?.cost_source]).toEqual([
      'reported',
      'estimated',
      'unknown',
    ]);
    expect(unknown).toEqual({ input_tokens: null, output_tokens: null, cost_usd: null, cost_source: 'unknown' });
    const known = (reported?.cost_usd ?? NaN) + (estimated?.cost_usd ?? NaN);
    expect(doc.usage.cost_usd).toBeCloseTo(known, 8);
    expect(doc.usage.unknown_cost_turns).toBe(1);
    expect(doc.usage.turns).toBe(3);
    expect(doc.usage.input_tokens).toBe((reported?.input_tokens ?? NaN) + (estimated?.input_tokens ?? NaN));
    // A session whose only answer's cost is unknown has an unknown total, not $0.
    expect((await documentOf(single.unknown)).usage).toEqual({
      input_tokens: null,
      output_tokens: null,
      cost_usd: null,
      unknown_cost_turns: 1,
      turns: 1,
    });
  });

  it('ls --json carries each session its total, the same as show --json', async () => {
    const r = await rig.run(['sessions', 'ls', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const listed = new Map((JSON.parse(r.stdout) as Array<{ id: string; usage: Total }>).map((s) => [s.id, s.usage]));
    for (const id of [mixed, ...Object.values(single)]) expect(listed.get(id)).toEqual((await documentOf(id)).usage);
    expect(listed.get(single.unknown)?.cost_usd).toBeNull();
    expect(listed.get(single.reported)?.cost_usd).toBeGreaterThan(0);
    const again = await rig.run(['sessions', 'ls', '-o', 'json']);
    expect(JSON.parse(again.stdout)).toEqual(JSON.parse(r.stdout));
  });

  it('the transcript says under each answer what it cost, and under the title what the session cost, an unknown cost as unknown', async () => {
    const text = await show(mixed);
    const costs = text.split('\n').filter((l) => /^ {2}cost /.test(l));
    expect(costs).toEqual([
      expect.stringMatching(/^ {2}cost \$0\.\d+ · [\d,]+ tokens in, [\d,]+ out$/),
      expect.stringMatching(/^ {2}cost \$0\.\d+ \(estimated\) · [\d,]+ tokens in, [\d,]+ out$/),
      '  cost unknown · tokens not reported',
    ]);
    expect(text.split('\n')[2]).toMatch(
      /^cost at least \$0\.\d+ \(1 of 3 answers' cost unknown\) · [\d,]+ tokens in, [\d,]+ out$/,
    );
    expect(text).not.toMatch(FREE);
    expect((await show(single.unknown)).split('\n')[2]).toBe('cost unknown (1 answer) · tokens not reported');
  });

  it('under the strict profile the tokens are known and the cost is not: the cost says unknown, the tokens are shown', async () => {
    await withRig({ profile: 'strict' }, async (strict) => {
      const r = await strict.run(['ask', '-p', 'fast', '-o', 'json', 'What does a strict server report?']);
      expect(r.code, r.stderr).toBe(0);
      const id = (JSON.parse(r.stdout) as { session: string }).session;
      const text = (await strict.run(['sessions', 'show', id])).stdout;
      expect(text).toMatch(/^ {2}cost unknown · [\d,]+ tokens in, [\d,]+ out$/m);
      expect(text).not.toMatch(FREE);
    });
  });
});

describe('what the answer cost, in the summary and JUnit exports', () => {
  const md = new MarkdownIt({ html: false });
  /** The rendered summary's Cost section, as its list items read. */
  const costItems = (markdown: string): string[] => {
    const html = md.render(markdown);
    const section = /<h3>Cost<\/h3>\s*<ul>([\s\S]*?)<\/ul>/.exec(html)?.[1] ?? '';
    return [...section.matchAll(/<li>([\s\S]*?)<\/li>/g)].map((m) => m[1] ?? '');
  };

  it('the summary has a Cost section: reported, estimated, and unknown as unknown; a session of several answers adds its total (reliability #250)', async () => {
    expect(costItems(await exportOf(single.reported, 'summary'))).toEqual([
      expect.stringMatching(/^This answer: cost \$0\.\d+ · [\d,]+ tokens in, [\d,]+ out$/),
    ]);
    expect(costItems(await exportOf(single.estimated, 'summary'))).toEqual([
      expect.stringMatching(/^This answer: cost \$0\.\d+ \(estimated\) · [\d,]+ tokens in, [\d,]+ out$/),
    ]);
    const unknown = await exportOf(single.unknown, 'summary');
    expect(costItems(unknown)).toEqual(['This answer: cost unknown · tokens not reported']);
    expect(unknown).not.toMatch(FREE);
    expect(costItems(await exportOf(mixed, 'summary'))).toEqual([
      'This answer: cost unknown · tokens not reported',
      expect.stringMatching(/^The session: cost at least \$0\.\d+ \(1 of 3 answers' cost unknown\) · /),
    ]);
  });

  it('the markdown transcript says what each answer cost and what the session cost, an unknown cost as unknown', async () => {
    const html = md.render(await exportOf(mixed, 'markdown'));
    const items = [...html.matchAll(/<li>(cost [^<]*)<\/li>/g)].map((m) => m[1]);
    expect(items).toEqual([
      expect.stringMatching(/^cost \$0\.\d+ · [\d,]+ tokens in, [\d,]+ out$/),
      expect.stringMatching(/^cost \$0\.\d+ \(estimated\) · [\d,]+ tokens in, [\d,]+ out$/),
      'cost unknown · tokens not reported',
    ]);
    expect(html).toMatch(/<li>Cost: cost at least \$0\.\d+ \(1 of 3 answers' cost unknown\) · /);
    expect(html).not.toMatch(FREE);
  });

  it('JUnit <properties> carry the cost, its source and the tokens, an unknown figure left out (never 0), and the file stays valid by the junit-10 schema', async () => {
    const props = (xml: string): Map<string, string> =>
      new Map([...xml.matchAll(/<property name="([^"]+)" value="([^"]*)"\/>/g)].map((m) => [m[1] ?? '', m[2] ?? '']));
    for (const source of SOURCES) {
      const xml = await exportOf(single[source], 'junit');
      expect(await junitSchemaErrors(xml)).toEqual([]);
      const p = props(xml);
      const doc = await documentOf(single[source]);
      const usage = answers(doc)[0];
      expect(p.get('cost_source')).toBe(source);
      if (source === 'unknown') {
        for (const name of ['cost_usd', 'input_tokens', 'output_tokens', 'session_cost_usd'])
          expect(p.has(name)).toBe(false);
        expect(p.get('session_unknown_cost_answers')).toBe('1');
      } else {
        expect(Number(p.get('cost_usd'))).toBe(usage?.cost_usd);
        expect(Number(p.get('input_tokens'))).toBe(usage?.input_tokens);
        expect(Number(p.get('output_tokens'))).toBe(usage?.output_tokens);
        expect(p.get('session_unknown_cost_answers')).toBe('0');
      }
    }
    const p = props(await exportOf(mixed, 'junit'));
    expect(p.get('cost_source')).toBe('unknown');
    expect(Number(p.get('session_cost_usd'))).toBe((await documentOf(mixed)).usage.cost_usd);
    expect(p.get('session_answers')).toBe('3');
    expect(p.get('session_unknown_cost_answers')).toBe('1');
  });
});

describe('what the turn cost, in a CI log (--progress plain)', () => {
  it('a line says the cost once it is known: reported, estimated, and unknown as unknown', async () => {
    const want: Record<Source, RegExp> = {
      reported: /^cost \$0\.\d+ · [\d,]+ tokens in, [\d,]+ out$/m,
      estimated: /^cost \$0\.\d+ \(estimated\) · [\d,]+ tokens in, [\d,]+ out$/m,
      unknown: /^cost unknown · tokens not reported$/m,
    };
    for (const source of SOURCES) {
      rig.sim.setFaults([...METER[source]]);
      const r = await rig
        .run(['ask', '-p', 'fast', '-o', 'final', '--progress', 'plain', `Log the cost of ${source}`])
        .finally(() => rig.sim.setFaults([]));
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(want[source]);
      expect(r.stderr).not.toMatch(FREE);
    }
  });
});

describe('what the turn cost, in the step outputs (docs/ci.md "Step outputs")', () => {
  const outputsOf = async (file: string): Promise<Map<string, string>> => parseGithubFile(await readFile(file, 'utf8'));

  it('ask writes cost-usd, cost-source, input-tokens and output-tokens as -o json says them; an unknown figure is empty, never 0', async () => {
    for (const source of SOURCES) {
      const file = join(dir, `outputs-${source}`);
      rig.sim.setFaults([...METER[source]]);
      let usage: Usage;
      try {
        const r = await rig.run(['ask', '-p', 'fast', '-o', 'json', '--github-output', file, `Cost of ${source}?`]);
        expect(r.code, r.stderr).toBe(0);
        usage = (JSON.parse(r.stdout) as { usage: Usage }).usage;
      } finally {
        rig.sim.setFaults([]);
      }
      const got = await outputsOf(file);
      expect(got.get('cost-source')).toBe(source);
      const shown = (n: number | null): string => (n === null ? '' : String(n));
      expect(got.get('cost-usd')).toBe(shown(usage.cost_usd));
      expect(got.get('input-tokens')).toBe(shown(usage.input_tokens));
      expect(got.get('output-tokens')).toBe(shown(usage.output_tokens));
      if (source === 'unknown') expect([got.get('cost-usd'), got.get('input-tokens')]).toEqual(['', '']);
      else expect(Number(got.get('cost-usd'))).toBeGreaterThan(0);
    }
  });

  it('gate on a recorded turn writes the same cost outputs as the run did', async () => {
    for (const source of ['reported', 'unknown'] as const) {
      const file = join(dir, `gate-${source}`);
      const r = await rig.run(['gate', '-s', single[source], '--min-convergence', '0', '--github-output', file]);
      expect(r.code, r.stderr).toBe(0);
      const got = await outputsOf(file);
      const usage = answers(await documentOf(single[source]))[0];
      expect(got.get('cost-source')).toBe(source);
      expect(got.get('cost-usd')).toBe(usage?.cost_usd === null ? '' : String(usage?.cost_usd));
    }
  });

  it("a batch writes its items' known costs summed and how many items' cost is unknown", async () => {
    const items = join(dir, 'items.txt');
    await writeFile(items, 'Plan the database migration\nName the risks\n');
    const file = join(dir, 'batch-outputs');
    const out = join(dir, 'results.jsonl');
    const summary = join(dir, 'batch-summary.md');
    // One item at a time: the first job starts unmetered, the second metered. Scoped to the start
    // requests: the batch's own reads (its GET /deliberations at the start) take no fault.
    rig.sim.setFaults(['chat:meter=none;times=1']);
    const r = await rig
      .run(['batch', items, '-j', '1', '-p', 'fast', '--out', out, '--github-output', file, '--summary', summary])
      .finally(() => rig.sim.setFaults([]));
    expect(r.code, r.stderr).toBe(0);
    const lines = (await readFile(out, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { usage: Usage | null });
    const costs = lines.map((l) => l.usage?.cost_usd ?? null);
    expect(costs.filter((c) => c === null)).toHaveLength(1);
    const got = await outputsOf(file);
    expect(got.get('items-cost-unknown')).toBe('1');
    expect(Number(got.get('cost-usd'))).toBeCloseTo(costs.find((c) => c !== null) ?? NaN, 8);
    // The batch's summary: the total, a lower bound, and a cost per item, one of them unknown.
    const html = new MarkdownIt({ html: false }).render(await readFile(summary, 'utf8'));
    expect(html).toMatch(/<strong>Cost:<\/strong> cost at least \$0\.\d+ \(1 of 2 answers' cost unknown\)/);
    const cells = [...html.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((m) =>
      [...(m[1] ?? '').matchAll(/<t[dh]>([\s\S]*?)<\/t[dh]>/g)].map((c) => c[1]),
    );
    const at = cells[0]?.indexOf('Cost') ?? -1;
    expect(at).toBeGreaterThan(0);
    expect(
      cells
        .slice(1)
        .map((row) => row[at])
        .sort(),
    ).toEqual([expect.stringMatching(/^\$0\.\d+$/), 'unknown']);
    expect(html).not.toMatch(FREE);
  });
});
