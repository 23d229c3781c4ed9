import { oneLine } from '../terminal/sanitize.js';
import type { SettingLine } from '../run/settings.js';
import type { CommandDef } from './command.js';
import type { Check } from './shared/doctor-checks.js';

/**
 * `nsed doctor`: the set-up `ask` depends on, one line per check with its fix. Exits 0 only when
 * everything `ask` needs works; otherwise with the code of the first failing check that `ask`
 * needs (6 network, 4 auth, 8 store, ...), the code `ask` itself would have exited with.
 */
export const doctor: CommandDef<Record<string, never>> = {
  command: 'doctor',
  describe: 'check the set-up: URL and where it came from, reachability, token, store, proxy, Node',
  configFile: 'own',
  examples: [
    ['nsed doctor', 'one line per check, with the fix for each that fails'],
    ["nsed doctor -o json | jq '.checks[] | select(.ok | not)'", 'only what fails'],
  ],
  parse: () => ({}),
  run: async (_opts, ctx) => {
    const checks = await import('./shared/doctor-checks.js');
    const [{ readToken }, { settingLines }, { boundsOf }] = await Promise.all([
      import('../run/config.js'),
      import('../run/settings.js'),
      import('../files/read-input.js'),
    ]);
    const { toNsedError, ExitCode } = await import('../errors.js');
    const out: Check[] = [checks.nodeCheck(process.version), checks.configCheck(ctx)];
    const { globals } = ctx;
    const { settings } = globals;
    const { url, source } = globals.sim
      ? { url: '(an in-process simulator)', source: 'sim' }
      : { url: settings.url.value, source: settings.url.source };
    out.push({
      name: 'url',
      ok: true,
      detail: `${url} (from ${SOURCES[source] ?? source}; precedence: flag > environment > config > default)`,
    });

    let tokenState = 'no token (set NSED_TOKEN or token_file if the orchestrator wants one)';
    let tokenOk = true;
    if (!globals.sim) {
      try {
        const token = await readToken(
          settings.token.value,
          settings.token.from,
          ctx.env,
          () => undefined,
          boundsOf(ctx),
        );
        if (token !== undefined)
          tokenState = `a token from ${settings.token.source === 'config' ? 'token_file (config)' : settings.token.from}`;
      } catch (err) {
        const e = toNsedError(err);
        out.push({
          name: 'token',
          ok: false,
          detail: e.message,
          fix: e.hint ?? 'check the token file',
          exitCode: e.exitCode,
        });
        tokenOk = false;
      }
      if (/^https?:/.test(url)) out.push(...(await checks.networkSettingsCheck(ctx.env, url)));
    }

    if (tokenOk) out.push(...(await orchestratorChecks(ctx, tokenState, source === 'default')));
    out.push(...(await checks.storeChecks(ctx)));

    const failing = out.find((c) => !c.ok && c.exitCode !== undefined);
    const code = failing?.exitCode ?? ExitCode.ok;
    // Every setting and where it came from, the token as where it is read from, never its value.
    // With --sim the URL setting is not what this run uses: the list says so rather than name a default.
    const shown = settingLines(settings).map((s) =>
      s.name === 'url' && globals.sim
        ? { ...s, value: '(an in-process simulator)', source: 'flag' as const, from: '--sim' }
        : s,
    );
    const text =
      globals.settings.output.value === 'json' || globals.settings.output.value === 'ndjson'
        ? `${JSON.stringify(
            {
              ok: code === 0,
              exit_code: code,
              url: globals.sim ? null : url,
              url_source: source,
              checks: out.map(toJson),
              settings: Object.fromEntries(
                shown.map((s) => [s.name, { value: s.value, source: s.source, from: s.from }]),
              ),
            },
            null,
            globals.settings.output.value === 'json' ? 2 : undefined,
          )}\n`
        : render(out, code, shown);
    // The URL may carry credentials in its query (docs/reliability.md #88); a check's detail, server text.
    await (await import('../output/session-write.js')).writeStdout(ctx.io, ctx.secrets.redact(text));
    return code;
  },
};

/** `--url`, `NSED_URL`, `the config file (policy)`, `the default`. */
function sourceWords(s: { source: string; from: string }): string {
  return s.source === 'config' ? `the config file's ${s.from}` : s.source === 'default' ? 'the default' : s.from;
}

const SOURCES: Record<string, string> = {
  flag: '--url',
  env: 'NSED_URL',
  config: 'the config file',
  session: "the session's record",
  default: 'the built-in default',
  sim: '--sim',
};

/** /health (reachability, latency), then a bearer route (`GET /policies`): is the token accepted. */
async function orchestratorChecks(
  ctx: Parameters<(typeof doctor)['run']>[1],
  tokenState: string,
  isDefault: boolean,
): Promise<Check[]> {
  const { toNsedError, ExitCode } = await import('../errors.js');
  const out: Check[] = [];
  let conn;
  try {
    conn = await ctx.connect();
  } catch (err) {
    const e = toNsedError(err);
    return [{ name: 'connect', ok: false, detail: e.message, fix: e.hint ?? 'check --url', exitCode: e.exitCode }];
  }
  try {
    const started = ctx.clock.now().getTime();
    try {
      const health = await conn.client.health({ signal: ctx.signal });
      const ms = ctx.clock.now().getTime() - started;
      out.push({ name: 'reachable', ok: true, detail: `${conn.url} answered in ${ms} ms` });
      out.push(
        health.status === 'healthy'
          ? {
              name: 'health',
              ok: true,
              detail: `healthy${health.nats_connection ? ` (NATS ${health.nats_connection})` : ''}`,
            }
          : {
              name: 'health',
              ok: false,
              detail: `the orchestrator says it is ${health.status}`,
              fix: "see the orchestrator's logs",
              exitCode: ExitCode.server,
            },
      );
    } catch (err) {
      const e = toNsedError(err);
      if (e.code === 'network' || e.code === 'timeout') {
        const fix = isDefault
          ? 'nothing answers at the default URL: pass --url, set NSED_URL or nsed config set url, or try --sim'
          : (e.hint ?? 'check the URL and that the orchestrator is running');
        return [{ name: 'reachable', ok: false, detail: e.message, fix, exitCode: e.exitCode }];
      }
      // An orchestrator without /health (or one that guards it) is still reachable.
      out.push({
        name: 'reachable',
        ok: true,
        detail: `${conn.url} answered in ${ctx.clock.now().getTime() - started} ms`,
      });
      out.push({ name: 'health', ok: false, detail: e.message, fix: 'GET /health should answer 200 without a token' });
    }
    try {
      const policies = await conn.client.policies({ signal: ctx.signal });
      out.push({ name: 'token', ok: true, detail: `accepted (${tokenState})` });
      out.push(
        policies.length > 0
          ? { name: 'policies', ok: true, detail: `${policies.length} (nsed policies lists them)` }
          : {
              name: 'policies',
              ok: false,
              detail: 'the orchestrator has no policies',
              fix: 'register one, or choose agents with --agents',
              exitCode: ExitCode.notFound,
            },
      );
    } catch (err) {
      const e = toNsedError(err);
      if (e.code === 'auth') {
        out.push({
          name: 'token',
          ok: false,
          detail: `refused: ${e.message} (${tokenState})`,
          fix: e.hint ?? 'check NSED_TOKEN or the token file',
          exitCode: e.exitCode,
        });
      } else if (e.code === 'not_found') {
        out.push(...(await plainServerChecks(conn, tokenState, ctx.signal, out)));
      } else {
        out.push({
          name: 'policies',
          ok: false,
          detail: e.message,
          fix: e.hint ?? "see the orchestrator's logs",
          exitCode: e.exitCode,
        });
      }
    }
  } finally {
    await conn.close();
  }
  return out;
}

/**
 * No /policies: maybe not an NSED orchestrator at all, but a plain OpenAI-compatible server
 * (llama.cpp, vLLM, Ollama, a hosted API), where `ask -m NAME` works (README, "Any
 * OpenAI-compatible server"). Its /v1/models says so; then the missing /health is no fault.
 */
async function plainServerChecks(
  conn: Awaited<ReturnType<Parameters<(typeof doctor)['run']>[1]['connect']>>,
  tokenState: string,
  signal: AbortSignal,
  before: Check[],
): Promise<Check[]> {
  const { toNsedError } = await import('../errors.js');
  let models;
  try {
    models = await conn.client.models({ signal });
  } catch (err) {
    const e = toNsedError(err);
    return [
      {
        name: 'server',
        ok: false,
        detail: `not an NSED orchestrator (GET /policies: 404), and GET /v1/models failed: ${e.message}`,
        fix: e.hint ?? 'check --url: it should name the server, not a path under it',
        exitCode: e.exitCode,
      },
    ];
  }
  const health = before.findIndex((c) => c.name === 'health');
  if (health >= 0) before[health] = { name: 'health', ok: true, detail: 'no /health (not an NSED orchestrator)' };
  const shown = models.slice(0, 5).map((m) => m.id);
  const list =
    models.length === 0
      ? 'no models listed'
      : `${models.length} model${models.length === 1 ? '' : 's'}: ${shown.join(', ')}${models.length > shown.length ? ', …' : ''}`;
  return [
    { name: 'token', ok: true, detail: `accepted (${tokenState})` },
    {
      name: 'server',
      ok: true,
      detail: `an OpenAI-compatible server, not an NSED orchestrator (${list}): -p, --agents, --rounds, resume, inject and cancel need an orchestrator`,
      works: `nsed ask -m ${models[0]?.id ?? 'MODEL'} works here`,
    },
  ];
}

/** A check as `-o json` documents it: snake_case, every key present. */
function toJson(c: Check): Record<string, unknown> {
  return { name: c.name, ok: c.ok, detail: c.detail, fix: c.fix ?? null, exit_code: c.exitCode ?? null };
}

function render(checks: readonly Check[], code: number, settings: readonly SettingLine[]): string {
  // Details quote the server and the environment: one safe line each.
  const lines = checks.map(
    (c) =>
      `${c.ok ? '✓' : '✗'} ${c.name}: ${oneLine(c.detail, 400)}${!c.ok && c.fix !== undefined ? `\n    fix: ${oneLine(c.fix, 300)}` : ''}`,
  );
  lines.push('settings (flag > environment > config > default):');
  for (const s of settings) lines.push(`  ${s.name}: ${oneLine(s.value, 200)} (${sourceWords(s)})`);
  const partly = checks.find((c) => c.works !== undefined);
  lines.push(
    code !== 0
      ? `not ready (exit ${code}): fix the first ✗ above`
      : partly?.works !== undefined
        ? `ready for -m: ${oneLine(partly.works, 200)}`
        : 'ready: nsed ask will work',
  );
  return `${lines.join('\n')}\n`;
}
