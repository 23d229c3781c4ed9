import type { ParsedArgv, CommandDef } from '../commands/command.js';
import { parseCommandLine } from '../commands/parse-step.js';
import type { LoadedConfig } from '../run/config-file.js';
import { createContext, runSecrets, type ContextParts, type ProcessContext } from '../run/context.js';
import type { OutputMode } from '../output/modes.js';
import { toNsedError, wasReported } from '../errors.js';
import { NDJSON_SCHEMA_VERSION } from '../events/events.js';
import { toJsonLine } from '../output/ndjson.js';
import { createIO, type Streams, type TtyProbe } from '../terminal/create-io.js';
import { redactingStream, type RedactingStream } from '../terminal/redacting-stream.js';
import { oneLine } from '../terminal/sanitize.js';
import { colorOfSettings, settingLines } from '../run/settings.js';

export type { Streams, TtyProbe } from '../terminal/create-io.js';

export interface Selected {
  def: CommandDef;
  argv: ParsedArgv;
}

/**
 * Runs the command the words chose: reads the config file, checks the global options, builds the
 * one Context of this run, runs the command and turns any error into `nsed: …` / `hint: …` and an
 * exit code. Shared by runCli (after yargs or the prescan) and the fast entry (cli/fast.ts), so
 * both print the same bytes and exit with the same codes.
 */
export async function runSelected(
  selected: Selected,
  base: ProcessContext,
  streams: Streams,
  parts: ContextParts = {},
  isTTY?: TtyProbe,
): Promise<number> {
  let output: OutputMode | undefined;
  const secrets = runSecrets(base.env);
  // Everything this run writes to stderr is redacted (docs/reliability.md #89); created on first
  // use, as the process stream itself is.
  let stderr: RedactingStream | undefined;
  const outer = streams;
  streams = {
    get stdout() {
      return outer.stdout;
    },
    get stderr() {
      stderr ??= redactingStream(outer.stderr, secrets);
      return stderr.stream;
    },
    get stdin() {
      return outer.stdin;
    },
  };
  try {
    return await runWith(selected, base, streams, parts, isTTY, secrets, (o) => (output = o));
  } catch (err) {
    // Exactly one terminal event ends every NDJSON run, also one that failed before its turn began.
    if (output === 'ndjson' && !wasReported(err)) {
      const e = toNsedError(err);
      streams.stdout.write(
        toJsonLine({
          v: NDJSON_SCHEMA_VERSION,
          seq: 1,
          type: 'error',
          code: e.code,
          exit_code: e.exitCode,
          message: secrets.redact(e.message),
          verdict: null,
          gate: null,
          status: null,
        }),
      );
    }
    // -o json prints one object in every outcome; only a usage error leaves stdout empty.
    if (output === 'json' && !wasReported(err)) {
      const e = toNsedError(err);
      if (e.code !== 'usage') {
        const { jsonFailureLine } = await import('../output/json.js');
        streams.stdout.write(
          jsonFailureLine({ code: e.code, exit_code: e.exitCode, message: secrets.redact(e.message) }),
        );
      }
    }
    return reportError(err, streams, base.env);
  } finally {
    stderr?.end();
  }
}

/**
 * The run itself: config, global options, IO and Context; `parsed` learns the output mode as
 * soon as it is known, before any other setting is checked, so that a bad value of one ends an
 * NDJSON run with its error event as a bad flag of the command does.
 */
async function runWith(
  selected: Selected,
  base: ProcessContext,
  streams: Streams,
  parts: ContextParts,
  isTTY: TtyProbe | undefined,
  secrets: ReturnType<typeof runSecrets>,
  parsed: (output: OutputMode) => void,
): Promise<number> {
  const config = await readConfigFor(selected.def, base.env, streams);
  const { globals, options } = parseCommandLine(selected.def, selected.argv, config, base.env, parsed);
  const io = createIO(
    streams,
    base.env,
    {
      // --no-color outranks the environment; the config file's `color` ranks below it (colorOfSettings).
      ...colorOfSettings(globals.settings.color),
      quiet: globals.quiet,
      verbose: globals.verbose,
      secrets,
    },
    isTTY,
  );
  if (io.verbose && !io.quiet) {
    for (const s of settingLines(globals.settings))
      io.stderr.write(`setting ${s.name} ${oneLine(s.value, 200)} (${s.source === 'default' ? 'default' : s.from})\n`);
  }
  return await selected.def.run(options, createContext(base, io, globals, parts, secrets));
}

/**
 * The config file, read once per run after the words are parsed (help and a lone --version
 * never read it). A broken file stops every command but the ones that report it themselves.
 */
export async function readConfigFor(
  def: CommandDef,
  env: ProcessContext['env'],
  streams: Pick<Streams, 'stderr'>,
): Promise<LoadedConfig> {
  if (def.configFile === 'ignore') return { path: undefined, exists: false, values: {}, unknown: [], error: undefined };
  const { loadConfig, unknownKeyError } = await import('../run/config-file.js');
  const config = await loadConfig(env);
  if (def.configFile === 'own') return config;
  if (config.error !== undefined) throw config.error;
  for (const key of config.unknown) {
    const e = unknownKeyError(key);
    streams.stderr.write(
      `nsed: warning: ${oneLine(config.path ?? '', 300)}: ${oneLine(e.message, 200)}, ignored; ${oneLine(e.hint ?? '', 300)}\n`,
    );
  }
  return config;
}

export function reportError(
  err: unknown,
  streams: Pick<Streams, 'stderr'>,
  env: Readonly<Record<string, string | undefined>>,
): number {
  const e = toNsedError(err);
  streams.stderr.write(`nsed: ${oneLine(e.message, 500)}\n`);
  if (e.hint !== undefined) streams.stderr.write(`hint: ${oneLine(e.hint, 300)}\n`);
  if (env['NSED_DEBUG'] === '1' && err instanceof Error && err.stack !== undefined) {
    streams.stderr.write(`${err.stack}\n`);
  }
  return e.exitCode;
}
