import { copyFile, readFile, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { instantClock, parseNdjson, useRig } from '../harness/rig.js';

/**
 * Issue 9 item 10: small truths, each seen through the real CLI against the simulator: in-process,
 * but for the first, which shows the real process's stdout on a pipe.
 */

const rig = useRig();
afterEach(() => {
  rig.sim.setFaults([]);
});

const sessionOf = (r: { stdout: string }): string =>
  String(parseNdjson(r.stdout).find((e) => e['type'] === 'turn-start')?.['session']);
const fileOf = (id: string): string => join(rig.home, 'sessions', `${id}.json`);

async function askNdjson(args: string[]): Promise<string> {
  const r = await rig.run(['ask', '-o', 'ndjson', '-p', 'fast', ...args]);
  expect(r.code).toBe(0);
  return sessionOf(r);
}

describe('small truths (issue 9 item 10)', () => {
  it('text mode ends stdout with a newline when the answer has none, on a pipe as on a terminal', async () => {
    const r = await rig.runProcess(['ask', '-p', 'fast', 'a question']);
    expect(r.code).toBe(0);
    expect(r.stdout.endsWith('%._\n')).toBe(true);
    expect(r.stdout.endsWith('\n\n')).toBe(false);
  });

  it('keeps reasoning milestones apart in -o json, the store and both exports', async () => {
    const r = await rig.run(['ask', '-o', 'json', '-p', 'fast', 'a question']);
    expect(r.code).toBe(0);
    const json = JSON.parse(r.stdout) as { session: string; reasoning: string };
    const milestones = json.reasoning.split('\n');
    expect(milestones).toContain('Round 1 — evaluations from CortexA, CortexB, CortexC');
    expect(milestones.every((m) => !/CortexC(Round|Consensus)/.test(m))).toBe(true);

    const stored = JSON.parse(await readFile(fileOf(json.session), 'utf8')) as { turns: Array<{ reasoning?: string }> };
    expect(stored.turns.at(-1)?.reasoning).toBe(json.reasoning);

    const exported = JSON.parse((await rig.run(['sessions', 'export', json.session, '--format', 'json'])).stdout) as {
      turns: Array<{ reasoning: string | null }>;
    };
    expect(exported.turns.at(-1)?.reasoning).toBe(json.reasoning);

    const events = parseNdjson((await rig.run(['sessions', 'export', json.session, '--format', 'ndjson'])).stdout);
    expect(events.filter((e) => e['type'] === 'reasoning').map((e) => e['text'])).toEqual(milestones);
  });

  it('records --agents/--rounds on the session; continue reuses them, a flag overrides one, exports show them', async () => {
    const submits = () =>
      rig.sim.requests
        .filter((q) => q.method === 'POST' && q.path === '/deliberation')
        .map((q) => q.body as Record<string, unknown>);
    // No -p: --agents chooses the council itself, and a policy beside it is refused (issue 23 item 7).
    const first = await rig.run([
      'ask',
      '-o',
      'ndjson',
      '--agents',
      'CortexA,CortexB',
      '--rounds',
      '2',
      'a council question',
    ]);
    expect(first.code).toBe(0);
    const id = sessionOf(first);
    expect(submits().at(-1)).toMatchObject({ agent_names: ['CortexA', 'CortexB'], deliberation_rounds: 2 });

    const again = await rig.run(['continue', '-s', id, '-o', 'ndjson', 'and then?']);
    expect(again.code).toBe(0);
    expect(submits().at(-1)).toMatchObject({ agent_names: ['CortexA', 'CortexB'], deliberation_rounds: 2 });

    const fewer = await rig.run(['continue', '-s', id, '--rounds', '1', '-o', 'ndjson', 'shorter?']);
    expect(fewer.code).toBe(0);
    expect(submits().at(-1)).toMatchObject({ agent_names: ['CortexA', 'CortexB'], deliberation_rounds: 1 });

    const doc = JSON.parse((await rig.run(['sessions', 'export', id, '--format', 'json'])).stdout) as {
      council: unknown;
    };
    expect(doc.council).toEqual({ agents: ['CortexA', 'CortexB'], rounds: 1 });
    expect((await rig.run(['sessions', 'export', id, '--format', 'markdown'])).stdout).toContain(
      '- Council: CortexA, CortexB · 1 rounds',
    );
  });

  it('a first request refused with 429 and Retry-After, and no job id, is sent again and answered (reliability #45)', async () => {
    rig.sim.setFaults(['status=429;retry-after=1;times=1']);
    const before = rig.sim.requests.filter((q) => q.path === '/v1/chat/completions').length;
    const clock = instantClock();
    const r = await rig.run(['ask', '-p', 'fast', 'a busy question'], { clock });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/429/);
    expect(rig.sim.requests.filter((q) => q.path === '/v1/chat/completions').length - before).toBe(2);
    // The second asked for, waited on the CLI's clock before the start was sent again.
    expect(clock.sleeps).toEqual([1000]);
  });

  it('refuses a session file that is a symbolic link instead of following it: exit 8, the target untouched', async () => {
    const id = await askNdjson(['a linked question']);
    const outside = join(rig.home, 'outside.json');
    await copyFile(fileOf(id), outside);
    await rm(fileOf(id));
    await symlink(outside, fileOf(id));
    const original = await readFile(outside, 'utf8');

    const shown = await rig.run(['sessions', 'show', id]);
    expect(shown.code).toBe(8);
    expect(shown.stderr).toMatch(
      /^nsed: session file .* is a symbolic link; nsed does not follow links in its store$/m,
    );
    const cont = await rig.run(['continue', '-s', id, 'follow up']);
    expect(cont.code).toBe(8);
    expect(await readFile(outside, 'utf8')).toBe(original);
    const listed = await rig.run(['sessions', 'ls', '--ids']);
    expect(listed.stdout).not.toContain(id);
    expect(listed.stderr).toMatch(/symbolic link/);
    await rm(fileOf(id));
  });

  it('sessions rm of a corrupt file keeps a .corrupt copy; --force deletes it (reliability #57)', async () => {
    const kept = await askNdjson(['to be corrupted']);
    await writeFile(fileOf(kept), '{"id": "torn');
    const r = await rig.run(['sessions', 'rm', kept]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/could not be read, so it was kept as .*\.json\.corrupt-\d+/);
    const names = await readdir(join(rig.home, 'sessions'));
    expect(names).not.toContain(`${kept}.json`);
    const copy = names.find((n) => n.startsWith(`${kept}.json.corrupt-`));
    expect(copy).toBeDefined();
    expect(await readFile(join(rig.home, 'sessions', String(copy)), 'utf8')).toBe('{"id": "torn');

    const gone = await askNdjson(['to be corrupted and forced']);
    await writeFile(fileOf(gone), 'garbage');
    expect((await rig.run(['sessions', 'rm', '--force', gone])).code).toBe(0);
    expect((await readdir(join(rig.home, 'sessions'))).filter((n) => n.startsWith(gone))).toEqual([]);
  });
});
