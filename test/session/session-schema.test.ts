// The session file's JSON Schema, shipped in the package (schemas/session.schema.json,
// docs/history.md), against the files real commands write: every session file and every rounds
// file beside them after ask (compat and native), continue, fork, inject, cancel, batch, a keyed
// question, an attached file, a --schema answer, and an older nsed's file continued into the new
// form, all run against the simulator over HTTP into one real store.
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, describe, expect, it } from 'vitest';
import type { Session } from '../../src/session/model.js';
import { useRig } from '../harness/rig.js';

const SCHEMA_FILE = path.join(import.meta.dirname, '..', '..', 'schemas', 'session.schema.json');
const FIXTURE = path.join(import.meta.dirname, 'fixtures', 'v1-session.json');

const rig = useRig();
afterAll(() => rig.sim.control.releaseAll());

async function validators() {
  const schema = JSON.parse(await readFile(SCHEMA_FILE, 'utf8')) as { $id: string };
  const ajv = new Ajv2020({ allErrors: true });
  ajv.addSchema(schema);
  const session = ajv.getSchema(schema.$id);
  const rounds = ajv.getSchema(`${schema.$id}#/$defs/rounds_file`);
  if (session === undefined || rounds === undefined) throw new Error('the schema does not compile');
  const check = (v: typeof session, value: unknown, where: string): void => {
    expect(v(value), `${where}: ${ajv.errorsText(v.errors)}`).toBe(true);
  };
  return {
    session: (value: unknown, where: string) => check(session, value, where),
    rounds: (value: unknown, where: string) => check(rounds, value, where),
    accepts: (value: unknown) => session(value),
  };
}

async function ok(args: string[], input?: string): Promise<string> {
  const r = await rig.run(args, input === undefined ? {} : { stdin: input });
  expect(r.code, `nsed ${args.join(' ')}: ${r.stderr}`).toBe(0);
  return r.stdout;
}

const sessionOf = (ndjson: string): string => {
  const start = ndjson.split('\n').find((l) => l.includes('"type":"turn-start"'));
  return String((JSON.parse(start ?? '{}') as { session?: string }).session);
};

describe('schemas/session.schema.json', () => {
  it('validates every session file and rounds file the commands write, and the older form', async () => {
    const v = await validators();
    const old = { ...(JSON.parse(await readFile(FIXTURE, 'utf8')) as Session), orchestrator: rig.sim.url };
    v.session(old, 'an older nsed file');
    // Commands that write sessions, each over HTTP to the simulator.
    const compat = sessionOf(await ok(['ask', '-o', 'ndjson', 'Design a cache']));
    await ok(['continue', '-s', compat, 'And its eviction?']);
    await ok(['ask', '--agents', 'CortexA,CortexB,CortexC', '--rounds', '2', 'Pick a queue']);
    await ok(['fork', compat, '--at', '2']);
    await ok(['fork', compat, '--at', '2', 'Now for writes']);
    const attached = path.join(rig.home, 'notes.txt');
    await writeFile(attached, 'the cache holds user profiles\n');
    await ok(['ask', '-f', attached, 'Review these notes']);
    const answerSchema = path.join(rig.home, 'answer.schema.json');
    await writeFile(
      answerSchema,
      JSON.stringify({ type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] }),
    );
    await ok(['ask', '--schema', answerSchema, 'Is it safe?']);
    await ok(['ask', '--idempotency-key', 'nightly-1', 'Summarise the day']);
    const items = path.join(rig.home, 'items.jsonl');
    await writeFile(items, '{"id":"a","prompt":"first"}\n{"id":"b","prompt":"second"}\n');
    await ok(['batch', items, '--out', path.join(rig.home, 'results.jsonl')]);

    // A deliberation held open: a message injected into it, then cancelled.
    rig.sim.control.hold = true;
    const held = rig.start(['ask', '-o', 'ndjson', 'Plan the rollout']);
    await held.output((o) => o.includes('"type":"job"'), 60_000);
    const running = sessionOf(held.stdout.text);
    await ok(['inject', '-s', running, '--no-wait', 'Keep it small']);
    await ok(['cancel', '-s', running]);
    rig.sim.control.releaseAll();
    rig.sim.control.hold = false;
    expect((await held.result).code).toBe(9);

    // The older file, continued: written in the new form.
    await writeFile(path.join(rig.home, 'sessions', `${old.id}.json`), `${JSON.stringify(old)}\n`);
    await ok(['continue', '-s', old.id, 'And the trade-offs?']);
    // Archived (the `archived` key), and one archived then brought back.
    await ok(['sessions', 'archive', compat]);
    await ok(['sessions', 'archive', old.id]);
    await ok(['sessions', 'unarchive', old.id]);

    const dir = path.join(rig.home, 'sessions');
    const names = await readdir(dir);
    const sessions = names.filter((n) => n.endsWith('.json'));
    let roundsFiles = 0;
    let archived = 0;
    const kinds = new Set<string>();
    for (const name of sessions) {
      const s = JSON.parse(await readFile(path.join(dir, name), 'utf8')) as Session;
      v.session(s, name);
      expect(s.version, name).toBe(2);
      if ('archived' in s) archived++;
      for (const t of s.turns) kinds.add(`${t.role}/${t.kind}/${t.status}`);
      for (const t of s.turns) {
        if (t.rounds_apart === undefined) continue;
        const file = path.join(dir, `${s.id}.rounds`, t.rounds_apart.file);
        v.rounds(JSON.parse(await readFile(file, 'utf8')), file);
        roundsFiles++;
      }
    }
    expect(sessions.length).toBeGreaterThanOrEqual(10);
    expect(roundsFiles).toBeGreaterThanOrEqual(10);
    expect(archived).toBe(1);
    expect([...kinds]).toEqual(
      expect.arrayContaining(['user/injection/complete', 'assistant/message/cancelled', 'assistant/message/complete']),
    );
  }, 240_000);

  it('refuses a file that is no session: the schema is no formality', async () => {
    const v = await validators();
    const old = JSON.parse(await readFile(FIXTURE, 'utf8')) as Session;
    expect(v.accepts({ ...old, turns: [{ ...old.turns[0], content: undefined }] })).toBe(false);
    expect(v.accepts({ ...old, turns: [{ ...old.turns[0], status: 'done' }] })).toBe(false);
    expect(v.accepts({ ...old, id: '../elsewhere' })).toBe(false);
    const { turns: _t, ...noTurns } = old;
    expect(v.accepts(noTurns)).toBe(false);
  });
});
