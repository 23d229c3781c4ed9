// The promptfoo provider (docs/ci.md "promptfoo"): a `file://` provider module whose default export
// is the class promptfoo constructs with the provider's `id` and `config`. Each `callApi` runs
// one `nsed ask` turn in this process, through the command's own parse and run (askTurn), and
// maps its typed result to promptfoo's response (src/promptfoo/response.ts): no child process,
// no printed output read back. An entry of its own (dist/promptfoo.js, shipped as
// provider/promptfoo.mjs), so it is in cli/: it reads the process's environment (NSED_URL,
// NSED_TOKEN, the config file, as the CLI does) and leaves the process's signals to promptfoo.
import { Readable, Writable } from 'node:stream';
import { ask, askTurn } from '../commands/ask.js';
import type { ParsedArgv } from '../commands/command.js';
import { GLOBAL_FLAGS, parseGlobalOptions } from '../commands/global-options.js';
import {
  createContext,
  innerGlobals,
  runSecrets,
  type Context,
  type GlobalOptions,
  type ProcessContext,
} from '../run/context.js';
import { toNsedError, usageError, type NsedError } from '../errors.js';
import { configWords } from '../promptfoo/config-words.js';
import { providerResponse, type PromptfooResponse } from '../promptfoo/response.js';
import { randomHex } from '../session/index.js';
import { redactDeep, type Secrets } from '../secrets.js';
import { createIO } from '../terminal/create-io.js';
import type { IO } from '../terminal/io.js';
import { resultOf, type TurnResult } from '../turn/turn-result.js';
import { systemClock } from './process-context.js';
import { parseWords, unknownOnce } from './run-cli.js';
import { readConfigFor } from './run-command.js';

/** What promptfoo hands the constructor (its ProviderOptions, the part read here). */
export interface ProviderOptions {
  id?: string;
  config?: unknown;
}

/** What promptfoo hands `callApi` third (its CallApiOptionsParams, the part read here). */
interface CallOptions {
  abortSignal?: AbortSignal;
}

/** What every call of one provider shares: the parsed words, the settings, and one store. */
interface Prepared {
  argv: ParsedArgv;
  globals: GlobalOptions;
  secrets: Secrets;
  /** The first call's Context, whose store every later call shares (opened once). */
  home: Context;
}

const discard = (): Writable => new Writable({ write: (_chunk, _encoding, done) => done() });

/** A run's IO that prints nothing and reads no stdin (promptfoo owns the terminal). */
function silentIO(env: ProcessContext['env']): IO {
  return createIO(
    { stdout: discard(), stderr: discard(), stdin: Readable.from([]) },
    env,
    { noColor: true, quiet: true },
    (which) => which === 'stdin',
  );
}

export default class NsedProvider {
  private readonly providerId: string;
  private readonly config: unknown;
  private prepared: Promise<Prepared> | undefined;

  constructor(options: ProviderOptions = {}) {
    this.providerId = typeof options.id === 'string' && options.id !== '' ? options.id : 'nsed';
    this.config = options.config;
  }

  id(): string {
    return this.providerId;
  }

  /** One council turn on `prompt`, as promptfoo's response; never throws (an error is the response's). */
  async callApi(prompt: string, _context?: unknown, options?: CallOptions): Promise<PromptfooResponse> {
    const env = process.env;
    // The run's tokens (NSED_TOKEN, then the token file once a connection reads it), for the redaction below.
    let secrets = runSecrets(env);
    let result: TurnResult | undefined;
    let thrown: NsedError | undefined;
    try {
      const prepared = await (this.prepared ??= prepare(this.config, env));
      secrets = prepared.secrets;
      const signal = options?.abortSignal ?? new AbortController().signal;
      const ctx = createContext(
        processOf(env, signal),
        silentIO(env),
        prepared.globals,
        { store: () => prepared.home.store() },
        prepared.secrets,
      );
      // The settings were resolved from these words once, when the provider was prepared.
      const opts = ask.parse({ ...prepared.argv, prompt: [prompt], '--': [] }, prepared.globals.settings);
      result = await askTurn(opts, ctx);
    } catch (err) {
      result = resultOf(err);
      thrown = toNsedError(err);
    }
    // The token never reaches promptfoo's results (docs/reliability.md #89, #256): every string of
    // the response (the answer, the error, the metadata) passes through the run's secrets, as MCP's do.
    return redactDeep(providerResponse(result, thrown), (t) => secrets.redact(t));
  }
}

/** A run's ProcessContext inside promptfoo's process: its environment, the call's cancellation. */
function processOf(env: ProcessContext['env'], signal: AbortSignal): ProcessContext {
  return { env, clock: systemClock, signal, signalExit: () => undefined, randomHex };
}

/**
 * The provider's config as `nsed ask` words, parsed by the CLI's own parser, with the config
 * file and environment read as the command line reads them. Settings for the turn as a silent
 * run: nothing printed, no progress, every figure taken from the result.
 */
async function prepare(config: unknown, env: ProcessContext['env']): Promise<Prepared> {
  const secrets = runSecrets(env);
  const words = ['ask', ...configWords(config, [...(ask.flags ?? []), ...GLOBAL_FLAGS])];
  const parsed = await parseWords(words, undefined);
  if (parsed.error !== undefined)
    throw usageError(`the nsed provider config: ${secrets.redact(unknownOnce(parsed.error.message))}`);
  const selected = parsed.selected;
  if (selected === undefined || selected.def !== ask) throw usageError('the nsed provider config names no nsed ask');
  const fileConfig = await readConfigFor(selected.def, env, { stderr: discard() });
  const globals: GlobalOptions = {
    ...innerGlobals(parseGlobalOptions(selected.argv, fileConfig, env, ask.flags ?? []), 'final', true),
    verbose: false,
  };
  const io = silentIO(env);
  const home = createContext(processOf(env, new AbortController().signal), io, globals, {}, secrets);
  return { argv: selected.argv, globals, secrets, home };
}
