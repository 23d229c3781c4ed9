import { describe, expect, it } from 'vitest';
import { parseNdjson, useRig } from '../harness/rig.js';

/**
 * `--url http://host/v1`, the base OpenAI SDKs, llm and LiteLLM take, reaches the orchestrator:
 * the compat API at `/v1/chat/completions` (never `/v1/v1/...`) and the native routes at the
 * parent, against the simulator over real HTTP.
 */

const rig = useRig();
const env = { NSED_URL: '' };
const NATIVE = ['--agents', 'CortexA,CortexB,CortexC'];

/** The paths the simulator was asked for since `before`. */
const pathsSince = (before: number): string[] => rig.sim.requests.slice(before).map((q) => q.path);

describe('a base URL ending in /v1', () => {
  it('compat: the chat completions go to /v1/chat/completions and the session records the parent', async () => {
    const before = rig.sim.requests.length;
    const r = await rig.run(['ask', '--url', `${rig.sim.url}/v1`, '-p', 'fast', '-o', 'ndjson', 'Design a cache'], {
      env,
    });
    expect(r.code, r.stderr).toBe(0);
    const paths = pathsSince(before);
    expect(paths).toContain('/v1/chat/completions');
    expect(paths.filter((p) => p.startsWith('/v1/v1'))).toEqual([]);
    const events = parseNdjson(r.stdout);
    expect(events[0]).toMatchObject({ type: 'turn-start', path: 'compat', url: rig.sim.url });
    expect(events.at(-1)).toMatchObject({ type: 'finish' });
    expect((await rig.session(String(events[0]?.['session'])))['orchestrator']).toBe(rig.sim.url);
  });

  it('native: --agents submits to /deliberation at the parent, and a trailing slash is the same base', async () => {
    const before = rig.sim.requests.length;
    const r = await rig.run(['ask', '--url', `${rig.sim.url}/v1/`, ...NATIVE, '-o', 'json', 'Design a cache'], {
      env,
    });
    expect(r.code, r.stderr).toBe(0);
    const paths = pathsSince(before);
    expect(paths).toContain('/deliberation');
    expect(paths.filter((p) => p.startsWith('/v1/'))).toEqual([]);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'complete', agents: NATIVE[1]?.split(',') });
  });

  it('--verbose says once which base was taken and why; without it nothing is said', async () => {
    const loud = await rig.run(['ask', '--verbose', '--url', `${rig.sim.url}/v1`, '-p', 'fast', '-o', 'final', 'hi'], {
      env,
    });
    expect(loud.code, loud.stderr).toBe(0);
    const said = loud.stderr.split('\n').filter((l) => l.includes('ends in /v1'));
    expect(said).toEqual([
      `url ${rig.sim.url} (from --url; ${rig.sim.url}/v1 ends in /v1, the compat API's prefix, so its parent is the base)`,
    ]);
    const quiet = await rig.run(['ask', '--url', `${rig.sim.url}/v1`, '-p', 'fast', '-o', 'final', 'hi'], { env });
    expect(quiet.code, quiet.stderr).toBe(0);
    expect(quiet.stderr).not.toContain('/v1');
  });

  it('a base whose last segment only ends in v1 (/apiv1) is kept as given', async () => {
    const r = await rig.run(['ask', '--url', `${rig.sim.url}/apiv1`, '-p', 'fast', '-o', 'final', 'hi'], { env });
    expect(r.code).not.toBe(0);
    expect(rig.sim.requests.at(-1)?.path).toBe('/apiv1/v1/chat/completions');
  });
});
