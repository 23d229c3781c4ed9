import { describe, expect, it } from 'vitest';
import { ask } from '../../src/commands/ask.js';
import { cancel } from '../../src/commands/cancel.js';
import type { CommandDef, ParsedArgv } from '../../src/commands/command.js';
import { parseCommandLine } from '../../src/commands/parse-step.js';
import { completionCommand } from '../../src/commands/completion.js';
import { continueCommand } from '../../src/commands/continue.js';
import { toolResult } from '../../src/commands/tool-result.js';
import { fork } from '../../src/commands/fork.js';
import { parseGlobalOptions } from '../../src/commands/global-options.js';
import { parseConfigText } from '../../src/run/config-file.js';
import { inject } from '../../src/commands/inject.js';
import { resume } from '../../src/commands/resume.js';
import { exportCommand } from '../../src/commands/sessions/export.js';
import { ls } from '../../src/commands/sessions/ls.js';
import { rm } from '../../src/commands/sessions/rm.js';
import { show } from '../../src/commands/sessions/show.js';
import { STDIN_MARKER } from '../../src/input/prompt.js';
import type { RunSettings } from '../../src/run/settings.js';
import { sim } from '../../src/commands/sim.js';
import { watch } from '../../src/commands/watch.js';
import { forAgents } from '../../src/turn/watch/watch-job.js';
import { INPUT_DEFAULTS } from '../harness/context-rig.js';

/** A command's parse step as the CLI runs it: the settings from the words first, then its options. */
const parseStep = <O>(def: CommandDef<O>, argv: ParsedArgv): O => parseCommandLine(def, argv).options;

// The parse steps read argv as yargs leaves it (absent flags missing, defaults filled in) and
// do no I/O: a bad value is a usage error (exit 2) before anything is opened.
const usage = (message: RegExp) =>
  expect.objectContaining({ code: 'usage', exitCode: 2, message: expect.stringMatching(message) });

function parseError(parse: () => unknown): unknown {
  try {
    parse();
  } catch (err) {
    return err;
  }
  throw new Error('parse did not throw');
}

const turnDefaults: ParsedArgv = { stream: true };

describe('ask', () => {
  it('keeps the prompt words and turns a lone - back into stdin', () => {
    expect(parseStep(ask, { ...turnDefaults, prompt: ['Design', STDIN_MARKER] })).toEqual({
      prompt: ['Design', '-'],
      turn: {
        policy: undefined,
        system: undefined,
        title: undefined,
        stream: true,
        save: true,
        agents: undefined,
        rounds: undefined,
        toolsFile: undefined,
        toolFlags: [],
        askUser: false,
        maxToolCalls: 8,
      },
      gates: { flags: {}, file: undefined },
      input: INPUT_DEFAULTS,
    });
  });

  it('reads -m as given and --no-save', () => {
    expect(parseStep(ask, { prompt: 'q', model: 'llama3:8b', save: false }).turn).toMatchObject({
      model: 'llama3:8b',
      policy: undefined,
      save: false,
    });
  });

  it('reads the turn flags, --no-stream and the council', () => {
    const flags = {
      prompt: 'one',
      system: 'be brief',
      title: 'T',
      stream: false,
      agents: 'A, B ,C',
      rounds: 3,
      tools: 't.json',
    };
    const opts = parseStep(ask, {
      ...flags,
      tool: ['calc=./calc.js', 'env=./env.js'],
      'ask-user': true,
      'max-tool-calls': 2,
    });
    expect(opts).toEqual({
      prompt: ['one'],
      turn: {
        policy: undefined,
        model: undefined,
        system: 'be brief',
        title: 'T',
        stream: false,
        save: true,
        agents: ['A', 'B', 'C'],
        rounds: 3,
        toolsFile: 't.json',
        toolFlags: ['calc=./calc.js', 'env=./env.js'],
        askUser: true,
        maxToolCalls: 2,
      },
      gates: { flags: {}, file: undefined },
      input: INPUT_DEFAULTS,
    });
  });

  it.each([
    [{ agents: 'A' }, /at least two agent names/],
    [{ agents: 'A,b c' }, /invalid agent name 'b c'/],
    [{ rounds: 0 }, /--rounds must be a whole number from 1 to 100/],
    [{ rounds: 2.5 }, /--rounds must be a whole number/],
    [{ rounds: 101 }, /--rounds/],
    [{ rounds: Number.NaN }, /--rounds/],
    [{ policy: '  ' }, /--policy is empty/],
    [{ model: ' ' }, /--model is empty/],
    [{ model: 'gpt-4o', policy: 'deep' }, /-m\/--model and -p\/--policy are exclusive/],
    [{ 'max-tool-calls': -1 }, /--max-tool-calls must be a whole number/],
    [{ 'max-cost': 0 }, /^--max-cost must be a positive number of dollars/],
    [{ 'max-cost': -1 }, /--max-cost must be a positive number/],
    [{ 'max-cost': Number.NaN }, /--max-cost must be a positive number/],
    [{ 'max-cost': Number.POSITIVE_INFINITY }, /--max-cost must be a positive number/],
    [{ 'max-tokens': 0 }, /^--max-tokens must be a positive whole number of tokens/],
    [{ 'max-tokens': 2.5 }, /--max-tokens must be a positive whole number/],
    [{ 'max-tokens': Number.NaN }, /--max-tokens/],
  ])('refuses %o', (flags, message) => {
    expect(parseError(() => parseStep(ask, { ...turnDefaults, ...flags }))).toEqual(usage(message));
  });

  it('reads the spend cap: dollars, tokens and --allow-unmetered', () => {
    expect(parseStep(ask, { ...turnDefaults, 'max-cost': 0.25, 'max-tokens': 5000 }).turn.cap).toEqual({
      maxCostUsd: 0.25,
      maxTokens: 5000,
    });
    expect(parseStep(ask, { ...turnDefaults, 'max-cost': 1, 'allow-unmetered': true }).turn.cap).toEqual({
      maxCostUsd: 1,
      allowUnmetered: true,
    });
    expect(parseStep(ask, { ...turnDefaults }).turn.cap).toBeUndefined();
  });

  it('refuses a bad spend cap from the environment or the config file as it refuses a bad flag (reliability #231)', () => {
    expect(parseError(() => parseGlobalOptions({}, undefined, { NSED_MAX_COST: 'lots' }, ask.flags))).toEqual(
      usage(/^NSED_MAX_COST must be a positive number of dollars/),
    );
    expect(parseError(() => parseGlobalOptions({}, undefined, { NSED_MAX_TOKENS: '-3' }, ask.flags))).toEqual(
      usage(/^NSED_MAX_TOKENS must be a positive whole number of tokens/),
    );
    expect(() => parseConfigText('{"max_cost": 0}', '/c.json')).toThrow(
      /max_cost must be a positive number of dollars/,
    );
    expect(() => parseConfigText('{"max_tokens": "many"}', '/c.json')).toThrow(/max_tokens must be a positive whole/);
    expect(parseConfigText('{"max_cost": 0.5, "max_tokens": 900}', '/c.json').values).toEqual({
      max_cost: 0.5,
      max_tokens: 900,
    });
  });

  it('ignores a flag value of the wrong type rather than passing it on', () => {
    expect(parseStep(ask, { ...turnDefaults, policy: 7, system: true }).turn).toMatchObject({
      policy: undefined,
      system: undefined,
    });
  });
});

describe('commands that name a session', () => {
  it.each([
    ['continue', (a: ParsedArgv) => parseStep(continueCommand, { ...turnDefaults, ...a }).target],
    ['resume', (a: ParsedArgv) => parseStep(resume, a).target],
    ['inject', (a: ParsedArgv) => parseStep(inject, a).target],
    ['cancel', (a: ParsedArgv) => parseStep(cancel, a).target],
  ])('%s takes -s ID or --last, and nothing else', (_name, target) => {
    expect(target({ session: '2026' })).toEqual({ kind: 'id', id: '2026' });
    expect(target({ last: true })).toEqual({ kind: 'last' });
    expect(parseError(() => target({}))).toEqual(usage(/name a session with -s ID or --last/));
    expect(parseError(() => target({ last: false }))).toEqual(usage(/-s ID or --last/));
  });

  it('inject waits unless --no-wait', () => {
    expect(parseStep(inject, { last: true, message: ['a', 'b'], wait: true })).toEqual({
      target: { kind: 'last' },
      message: ['a', 'b'],
      wait: true,
    });
    expect(parseStep(inject, { last: true, message: [], wait: false }).wait).toBe(false);
  });

  it('continue reads its turn flags before the session', () => {
    expect(parseError(() => parseStep(continueCommand, { ...turnDefaults, rounds: 0 }))).toEqual(usage(/--rounds/));
  });

  it('continue takes --tool-result CALL_ID=FILE (repeatable), never together with a prompt', () => {
    const opts = parseStep(continueCommand, {
      ...turnDefaults,
      last: true,
      'tool-result': ['call_1=a.txt', 'call_2=-'],
    });
    expect(opts.toolResults).toEqual(['call_1=a.txt', 'call_2=-']);
    expect(
      parseError(() =>
        parseStep(continueCommand, { ...turnDefaults, last: true, 'tool-result': 'call_1=a.txt', prompt: ['hi'] }),
      ),
    ).toEqual(usage(/either a prompt or --tool-result/));
  });

  it('tool-result takes a call id and a value, and does not follow unless --wait', () => {
    expect(parseStep(toolResult, { last: true, 'call-id': 'call_1', value: ['4'], wait: false })).toEqual({
      target: { kind: 'last' },
      callId: 'call_1',
      value: ['4'],
      wait: false,
    });
  });
});

describe('fork', () => {
  it('keeps the source, --at as given and the prompt', () => {
    expect(parseStep(fork, { ...turnDefaults, source: '2026', at: '-2', prompt: ['try', 'Redis'] })).toMatchObject({
      source: '2026',
      at: '-2',
      prompt: ['try', 'Redis'],
    });
    expect(parseStep(fork, { ...turnDefaults, source: '2026' })).toMatchObject({ at: undefined, prompt: [] });
  });
});

describe('sessions', () => {
  it('ls checks --limit and normalises --policy to the model string', () => {
    expect(parseStep(ls, { json: false, ids: false })).toEqual({
      limit: undefined,
      policy: undefined,
      state: undefined,
      archived: false,
      format: 'auto',
    });
    expect(parseStep(ls, { limit: 5, policy: 'deep', state: 'interrupted', json: true, ids: false })).toEqual({
      limit: 5,
      policy: 'nsed:deep',
      state: 'interrupted',
      archived: false,
      format: 'json',
    });
    expect(parseStep(ls, { ids: true, json: true }).format).toBe('ids');
    for (const limit of [0, -1, 1.5, Number.NaN, '3']) {
      expect(parseError(() => parseStep(ls, { limit }))).toEqual(usage(/--limit must be a whole number of at least 1/));
    }
    expect(parseError(() => parseStep(ls, { policy: 'nsed:' }))).toEqual(usage(/names nothing/));
  });

  it('rm keeps every named id and --force', () => {
    expect(parseStep(rm, { ids: ['a', 'b'], force: false })).toEqual({ ids: ['a', 'b'], last: false, force: false });
    expect(parseStep(rm, { ids: 'a', force: true })).toEqual({ ids: ['a'], last: false, force: true });
  });

  // `--`, -s ID and --last on sessions show, export and rm as on every other command.
  it('rm, show and export take ids after --, -s ID and --last', () => {
    expect(parseStep(rm, { ids: ['a'], '--': ['-b'], session: 'c' })).toMatchObject({ ids: ['a', '-b', 'c'] });
    expect(parseStep(rm, { last: true })).toMatchObject({ ids: [], last: true });
    expect(parseError(() => parseStep(rm, {}))).toEqual(usage(/name the sessions to delete/));
    expect(parseStep(show, { session: 'x' })).toMatchObject({ target: { kind: 'id', id: 'x' } });
    expect(parseStep(show, { '--': ['-x'] })).toMatchObject({ target: { kind: 'id', id: '-x' } });
    expect(parseError(() => parseStep(show, { id: 'x', session: 'y' }))).toEqual(usage(/name one session/));
    expect(parseError(() => parseStep(show, { session: 'x', last: true }))).toEqual(usage(/not both/));
  });

  it('show reads --rounds and --json', () => {
    expect(parseStep(show, { id: '2026', rounds: true, json: false })).toEqual({
      target: { kind: 'id', id: '2026' },
      rounds: true,
      ballots: false,
      json: false,
    });
    expect(parseStep(show, { last: true })).toMatchObject({ target: { kind: 'last' } });
    expect(parseError(() => parseStep(show, {}))).toEqual(usage(/name a session: an id, -s ID or --last/));
    expect(parseError(() => parseStep(show, { id: 'x', last: true }))).toEqual(usage(/not both/));
  });

  it('export writes to stdout for - and refuses an empty --out or another format', () => {
    expect(parseStep(exportCommand, { id: 'x', format: 'markdown', out: 'a.md' })).toEqual({
      target: { kind: 'id', id: 'x' },
      format: 'markdown',
      out: 'a.md',
    });
    expect(parseStep(exportCommand, { last: true, format: 'json' }).target).toEqual({ kind: 'last' });
    expect(parseStep(exportCommand, { id: 'x', format: 'ndjson', out: '-' }).out).toBeUndefined();
    // Another format is refused as yargs refuses it, in the words of the flag's choices.
    expect(parseError(() => parseStep(exportCommand, { id: 'x', format: 'nope' }))).toEqual(
      usage(/^-f\/--format must be one of json, .*, not 'nope'$/),
    );
    expect(parseError(() => parseStep(exportCommand, { id: 'x', out: '' }))).toEqual(usage(/--out needs a file name/));
  });
});

describe('sim', () => {
  const defaults: ParsedArgv = {
    host: '127.0.0.1',
    port: 8080,
    seed: 0,
    'round-ms': 600,
    'keepalive-ms': 15000,
    'history-ttl': 600,
    'dedup-ttl': 30,
  };

  it('reads the server flags; the token falls back to NSED_SIM_TOKEN only when it runs', () => {
    expect(parseStep(sim, { ...defaults, fault: ['drop-after=3'], 'without-route': ['inject'] })).toEqual({
      host: '127.0.0.1',
      port: 8080,
      seed: 0,
      roundMs: 600,
      keepaliveMs: 15000,
      historyTtlS: 600,
      token: undefined,
      faults: ['drop-after=3'],
      withoutRoutes: ['inject'],
      profile: undefined,
      dedup: undefined,
      dedupTtlS: 30,
      hold: false,
      singleFamily: false,
    });
    expect(parseStep(sim, { ...defaults, hold: true })).toMatchObject({ hold: true });
    expect(parseStep(sim, { ...defaults, 'single-family': true })).toMatchObject({ singleFamily: true });
  });

  it('reads the dedup switch as given; the profile is a setting (--profile, else NSED_SIM_PROFILE)', () => {
    const opts = parseStep(sim, {
      ...defaults,
      profile: 'strict',
      dedup: false,
      'dedup-ttl': 5,
      'without-route': ['responses', 'job-stream'],
    });
    expect(opts).toMatchObject({
      dedup: false,
      dedupTtlS: 5,
      withoutRoutes: ['responses', 'job-stream'],
    });
  });

  it.each(['port', 'seed', 'round-ms', 'keepalive-ms', 'history-ttl', 'dedup-ttl'])(
    'refuses a negative or non-numeric --%s',
    (flag) => {
      expect(parseError(() => parseStep(sim, { ...defaults, [flag]: -1 }))).toEqual(
        usage(new RegExp(`--${flag} must be a non-negative number`)),
      );
      expect(parseError(() => parseStep(sim, { ...defaults, [flag]: Number.NaN }))).toEqual(
        usage(new RegExp(`--${flag}`)),
      );
    },
  );
});

describe('completion', () => {
  it('names the shell, or leaves it to $SHELL when run', () => {
    const completion = completionCommand(() => []);
    expect(parseStep(completion, { shell: 'zsh' })).toEqual({ shell: 'zsh' });
    expect(parseStep(completion, {})).toEqual({ shell: undefined });
  });
});

/** The value of each setting, by name. */
const valuesOf = (settings: RunSettings): Record<string, unknown> =>
  Object.fromEntries(Object.entries(settings).map(([k, v]: [string, { value: unknown }]) => [k, v.value]));

describe('global options', () => {
  it('reads every global flag with its default', () => {
    const { settings, ...globals } = parseGlobalOptions({
      output: 'text',
      quiet: false,
      'idle-timeout': 90,
      color: true,
      sim: false,
    });
    expect(globals).toEqual({
      quiet: false,
      verbose: false,
      sim: false,
      config: { path: undefined, exists: false, values: {}, unknown: [], error: undefined },
    });
    // Each setting once, in settings (no flat copy beside it).
    expect(valuesOf(settings)).toMatchObject({
      home: undefined,
      output: 'text',
      timeoutS: undefined,
      idleTimeoutS: 90,
      color: true,
      progress: 'auto',
      onExit: 'detach',
    });
    expect(settings.url).toEqual({ value: 'http://localhost:8080', source: 'default', from: 'default' });
    const given = parseGlobalOptions({
      output: 'ndjson',
      url: 'http://h',
      'token-file': 't',
      home: 'h',
      timeout: 5,
      color: false,
      sim: true,
    });
    expect(given).toMatchObject({ sim: true });
    expect(valuesOf(given.settings)).toMatchObject({ output: 'ndjson', timeoutS: 5, color: false });
    expect(given.settings).toMatchObject({
      url: { value: 'http://h', source: 'flag', from: '--url' },
      token: { value: { kind: 'file', file: 't' }, source: 'flag', from: '--token-file' },
    });
  });

  // Every setting resolved once, flag > env > config > default, with its source.
  it('resolves every setting once, each with where it came from', () => {
    const config = {
      path: '/c.json',
      exists: true,
      values: {
        url: 'http://config',
        policy: 'cfg',
        agents: ['A', 'B'],
        rounds: 3,
        output: 'final' as const,
        idle_timeout: 30,
        color: false,
        token_file: '/tf',
        progress: 'plain' as const,
        max_cost: 0.5,
      },
      unknown: [],
      error: undefined,
    };
    const env = {
      NSED_URL: 'http://env/',
      NSED_POLICY: ' envp ',
      NSED_TOKEN: 'secret',
      NSED_SIM_PROFILE: 'strict',
      NSED_MAX_TOKENS: '20000',
    };
    const sources = (o: ReturnType<typeof parseGlobalOptions>) =>
      Object.fromEntries(Object.entries(o.settings).map(([k, v]) => [k, [v.value, v.source]]));
    // ask has the turn flags: -p is the policy.
    expect(sources(parseGlobalOptions({ url: 'http://flag', policy: 'p', rounds: 2 }, config, env, ask.flags))).toEqual(
      {
        url: ['http://flag', 'flag'],
        home: [undefined, 'default'],
        token: [{ kind: 'env', name: 'NSED_TOKEN' }, 'env'],
        output: ['final', 'config'],
        idleTimeoutS: [30, 'config'],
        timeoutS: [undefined, 'default'],
        color: [false, 'config'],
        progress: ['plain', 'config'],
        onExit: ['detach', 'default'],
        policy: ['p', 'flag'],
        agents: [['A', 'B'], 'config'],
        rounds: [2, 'flag'],
        // -p names a policy for this run: its own council, not the file's agents.
        council: [{ kind: 'policy', rounds: undefined }, 'flag'],
        maxCostUsd: [0.5, 'config'],
        maxTokens: [20000, 'env'],
        simProfile: ['strict', 'env'],
        simRoundMs: [120, 'default'],
        simToken: [undefined, 'default'],
      },
    );
    // sessions ls has a -p of its own, a filter: not the policy of a turn.
    const listed = parseGlobalOptions({ policy: 'p' }, config, env, ls.flags);
    expect(listed.settings.policy).toEqual({ value: 'envp', source: 'env', from: 'NSED_POLICY' });
    expect(listed.settings.url).toEqual({ value: 'http://env', source: 'env', from: 'NSED_URL' });
    const fileOnly = parseGlobalOptions({}, config, {}, ask.flags).settings;
    expect(fileOnly).toMatchObject({
      url: { value: 'http://config', source: 'config', from: 'url' },
      token: { value: { kind: 'file', file: '/tf' }, source: 'config' },
      policy: { value: 'cfg', source: 'config' },
    });
    expect(parseGlobalOptions({}, undefined, {}, ask.flags).settings.policy).toEqual({
      value: '*',
      source: 'default',
      from: 'default',
    });
  });

  it('falls back to the config file for a flag not given, and the flag wins over it', () => {
    const config = {
      path: '/c.json',
      exists: true,
      values: { output: 'final' as const, idle_timeout: 30 },
      unknown: [],
      error: undefined,
    };
    const read = (...a: Parameters<typeof parseGlobalOptions>) => valuesOf(parseGlobalOptions(...a).settings);
    expect(read({}, config)).toMatchObject({ output: 'final', idleTimeoutS: 30 });
    expect(read({ output: 'json', 'idle-timeout': 5 }, config)).toMatchObject({
      output: 'json',
      idleTimeoutS: 5,
    });
    expect(read({})).toMatchObject({ output: 'text', idleTimeoutS: 90 });
  });

  it.each([
    [{ timeout: 0 }, /--timeout must be a positive number/],
    [{ timeout: -3 }, /--timeout/],
    [{ 'idle-timeout': 0 }, /--idle-timeout must be a positive number/],
  ])('refuses %o', (flags, message) => {
    expect(parseError(() => parseGlobalOptions(flags))).toEqual(usage(message));
  });
});

describe('the input flags of ask, continue and fork (-f, --schema, --template)', () => {
  it('-f repeats in order and a lone - after it stays stdin; --schema-retries and the template flags are read', () => {
    const opts = parseStep(fork, {
      ...turnDefaults,
      source: 'S',
      prompt: ['q'],
      file: ['a.ts', STDIN_MARKER, 'src/**/*.ts'],
      schema: 's.json',
      'schema-name': 'review',
      'schema-retries': 3,
      template: 't.md',
      var: ['a=1', 'b=2'],
      vars: 'v.json',
    });
    expect(opts.input).toEqual({
      files: ['a.ts', '-', 'src/**/*.ts'],
      schema: 's.json',
      schemaName: 'review',
      schemaRetries: 3,
      template: 't.md',
      vars: ['a=1', 'b=2'],
      varsFile: 'v.json',
    });
    expect(
      parseStep(continueCommand, { ...turnDefaults, last: true, prompt: ['q'], file: 'one.txt' }).input.files,
    ).toEqual(['one.txt']);
  });

  it.each([
    [{ 'schema-retries': -1 }, /--schema-retries must be a whole number from 0 to 5/],
    [{ 'schema-retries': 1.5 }, /--schema-retries must be a whole number/],
    [{ var: 'a=b' }, /--var and --vars fill a --template/],
    [{ file: ['-', STDIN_MARKER] }, /only one -f - can read standard input/],
    [{ file: '' }, /-f\/--file is empty/],
    [{ schema: ' ' }, /--schema is empty/],
  ])('%j is a usage error', (flags, message) => {
    expect(parseError(() => parseStep(ask, { ...turnDefaults, prompt: ['q'], ...flags }))).toMatchObject({
      code: 'usage',
      message: expect.stringMatching(message),
    });
  });
});

describe('watch parse', () => {
  it('a job id, a session or the latest; agents as given, in order', () => {
    expect(parseStep(watch, { job: 'oc-1' })).toEqual({ target: { kind: 'job', jobId: 'oc-1' }, agents: [] });
    expect(parseStep(watch, { session: 'abc', agent: ['CortexB', 'CortexA'] })).toEqual({
      target: { kind: 'id', id: 'abc' },
      agents: ['CortexB', 'CortexA'],
    });
    expect(parseStep(watch, { last: true, agent: 'CortexA' })).toEqual({
      target: { kind: 'last' },
      agents: ['CortexA'],
    });
  });

  it('nothing to watch, both a job and a session, or an empty agent name: usage errors', () => {
    expect(parseError(() => parseStep(watch, {}))).toEqual(usage(/name a deliberation id, or a session/));
    expect(parseError(() => parseStep(watch, { job: 'oc-1', last: true }))).toEqual(usage(/not both/));
    expect(parseError(() => parseStep(watch, { job: 'oc-1', session: 'abc' }))).toEqual(usage(/not both/));
    expect(parseError(() => parseStep(watch, { last: true, agent: [' '] }))).toEqual(
      usage(/--agent needs an agent name/),
    );
  });
});

describe('watch --agent filter', () => {
  const candidate = (agent_id: string) => ({
    agent_id,
    score: 0.5,
    content_preview: '',
    thought_preview: '',
    claims: [],
  });
  const round = (scored: boolean, agents: string[]) =>
    ({ type: 'round', round: 1, total_rounds: 2, progress: 0.5, scored, candidates: agents.map(candidate) }) as const;

  it('keeps only the named agents in a round, drops an unscored round of others, leaves other events alone', () => {
    // A scored round also names the whole round's leader (the first highest score), never the one shown for being alone.
    const leaderA = { leader: { agent_id: 'CortexA', score: 0.5 } };
    expect(forAgents(round(true, ['CortexA', 'CortexB']), ['CortexB'])).toEqual({
      ...round(true, ['CortexB']),
      ...leaderA,
    });
    expect(forAgents(round(true, ['CortexA']), ['CortexB'])).toEqual({ ...round(true, []), ...leaderA });
    expect(forAgents(round(true, []), ['CortexB'])).toEqual({ ...round(true, []), leader: null });
    expect(forAgents(round(false, ['CortexA']), ['CortexB'])).toBeUndefined();
    expect(forAgents(round(false, ['CortexA']), [])).toEqual(round(false, ['CortexA']));
    const text = { type: 'text', text: 'CortexA says' } as const;
    expect(forAgents(text, ['CortexB'])).toBe(text);
  });
});
