// A promptfoo provider's `config` as the words of `nsed ask`: each key is a flag of `nsed ask`
// (or a global one) by its long name, so the provider reads its settings exactly as the command
// line does (the same checks, messages, environment and config file), docs/ci.md "promptfoo".
import path from 'node:path';
import { usageError } from '../errors.js';
import type { FlagDef } from '../commands/shared/flag-def.js';

/**
 * Flags the provider owns, or that promptfoo's config must not hold: the provider reads the turn's
 * result, not its printed output, and promptfoo stores each provider's config with its results.
 */
const OWNED: Readonly<Record<string, string>> = {
  output: 'the provider returns the answer, verdict and usage to promptfoo itself',
  quiet: 'the provider prints nothing',
  verbose: 'the provider prints nothing',
  color: 'the provider prints nothing',
  progress: 'the provider prints nothing',
  token:
    'the token is never read from a config (promptfoo keeps it with the results): export NSED_TOKEN, or name a file with token-file',
  prompt: "the prompt is promptfoo's: write it under prompts",
};

/** Keys promptfoo adds to every provider's config itself: the directory of its config file. */
const BASE_PATH = 'basePath';

type Scalar = string | number | boolean;

/**
 * `--name=value` words for each key of `config` (an array is the flag repeated where the flag is
 * repeatable, else one comma list, as `agents: [A, B]` is `--agents A,B`; `false` is `--no-name`).
 * A relative path (a flag whose value is a file or directory) is taken from promptfoo's config
 * directory (`basePath`), as promptfoo takes its own `file://` paths. A key no flag of `flags`
 * names, or a value of another shape, is refused with the key named.
 */
export function configWords(config: unknown, flags: readonly FlagDef[]): string[] {
  if (config === undefined || config === null) return [];
  if (typeof config !== 'object' || Array.isArray(config))
    throw usageError('the nsed provider config must be a mapping of nsed ask flags', 'e.g. config: { policy: deep }');
  const { [BASE_PATH]: base, ...keys } = config as Record<string, unknown>;
  const words: string[] = [];
  for (const [key, value] of Object.entries(keys)) {
    const owned = OWNED[key];
    if (owned !== undefined) throw usageError(`the nsed provider config cannot set ${key}: ${owned}`);
    const def = flags.find((f) => f.name === key);
    if (def === undefined)
      throw usageError(
        `the nsed provider config has ${JSON.stringify(key.slice(0, 60))}, which is no flag of nsed ask`,
        "its keys are nsed ask's long flag names (nsed ask --help), e.g. url, policy, agents, rounds, home",
      );
    words.push(...flagWords(def, key, value, typeof base === 'string' ? base : undefined));
  }
  return words;
}

function flagWords(def: FlagDef, key: string, value: unknown, base: string | undefined): string[] {
  if (value === undefined || value === null) return [];
  if (def.type === 'boolean') {
    if (typeof value !== 'boolean') throw usageError(`the nsed provider config's ${key} must be true or false`);
    return [value ? `--${key}` : `--no-${key}`];
  }
  const values = Array.isArray(value) ? (value as unknown[]) : [value];
  if (!values.every(isScalar) || values.length === 0)
    throw usageError(`the nsed provider config's ${key} must be a ${def.type} or a list of them`);
  const isPath = def.complete === 'file' || def.complete === 'dir';
  const texts = values.map((v) => (isPath && base !== undefined ? fromBase(base, String(v)) : String(v)));
  // One word each (`--key=value`), so a value that starts with a dash is never read as a flag.
  if (def.repeatable === true) return texts.map((t) => `--${key}=${t}`);
  return [`--${key}=${texts.join(',')}`];
}

const isScalar = (v: unknown): v is Scalar => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';

/** `p` from the config's directory, unless absolute or standard input (`-`). */
const fromBase = (base: string, p: string): string => (p === '-' || path.isAbsolute(p) ? p : path.resolve(base, p));
