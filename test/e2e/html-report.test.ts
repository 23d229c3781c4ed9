// --html FILE on a run and sessions export --format html (docs/ci.md "Reports"): the same page from
// the run and from the store, written with --no-save too, and refused before anything is sent
// when it could never be written. The page itself is test/output/html.test.ts and, in a real
// browser, test/output/html-browser.test.ts.
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useRig } from '../harness/rig.js';

const rig = useRig();
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'nsed-html-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const exists = (p: string): Promise<boolean> =>
  stat(p).then(
    () => true,
    () => false,
  );

describe('--html FILE and sessions export --format html', () => {
  it('a run writes the page that sessions export --format html gives of the recorded session, byte for byte', async () => {
    const file = join(dir, 'run.html');
    const r = await rig.run(['ask', '-o', 'json', '--html', file, 'Design a cache']);
    expect(r.code, r.stderr).toBe(0);
    const id = (JSON.parse(r.stdout) as { session: string }).session;
    const page = await readFile(file, 'utf8');
    expect(page).toMatch(/^<!doctype html>/);
    expect(page).toContain('<blockquote class="text question">Design a cache</blockquote>');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const out = await rig.run(['sessions', 'export', id, '--format', 'html']);
    expect(out.code).toBe(0);
    expect(out.stdout).toBe(page);
  });

  it('works with --no-save: the page says so, and the store is never created', async () => {
    const home = join(dir, 'never');
    const file = join(dir, 'nosave.html');
    const r = await rig.run(['ask', '--no-save', '-o', 'final', '--html', file, 'Is the plan safe?'], {
      env: { NSED_HOME: home },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    const page = await readFile(file, 'utf8');
    expect(page).toContain('(not saved)');
    expect(page).toContain('<details class="round"');
    expect(await exists(home)).toBe(false);
  });

  it('is refused before the turn is sent when its folder is missing, or when it names another report file', async () => {
    const before = rig.sim.requests.length;
    const missing = await rig.run(['ask', '--html', join(dir, 'no', 'such', 'r.html'), 'hello']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^nsed: --html .*: the folder .* does not exist/m);
    const same = join(dir, 'same');
    const clash = await rig.run(['ask', '--summary', same, '--html', same, 'hello']);
    expect(clash.code).toBe(2);
    expect(clash.stderr).toContain('nsed: --summary and --html name the same file');
    const empty = await rig.run(['ask', '--html', '', 'hello']);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('nsed: --html needs a file name');
    expect(rig.sim.requests.length).toBe(before);
  });
});
