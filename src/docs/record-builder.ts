import type { Argv } from 'yargs';

/** An option as a command's yargs builder declared it. */
export interface RecordedOption {
  name: string;
  aliases: string[];
  type: 'string' | 'number' | 'boolean' | undefined;
  choices: string[];
  default: unknown;
  describe: string;
  array: boolean;
  hidden: boolean;
}

export interface RecordedPositional {
  name: string;
  describe: string;
  choices: string[];
}

export interface RecordedBuilder {
  options: RecordedOption[];
  positionals: RecordedPositional[];
  examples: Array<{ command: string; describe: string }>;
}

const asObject = (v: unknown): Record<string, unknown> =>
  typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : {};
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : typeof v === 'string' ? [v] : []);
const text = (o: Record<string, unknown>): string => String(o.describe ?? o.description ?? o.desc ?? '');

/**
 * Runs a yargs builder against a recorder instead of a parser, and returns what it declared.
 * The man page and the completion scripts are generated from this, so they list exactly the
 * flags the parser accepts and cannot drift from it. Calls that do not declare anything
 * (`conflicts`, `check`, …) are accepted and ignored.
 */
export function recordBuilder(build: (y: Argv) => Argv): RecordedBuilder {
  const rec: RecordedBuilder = { options: [], positionals: [], examples: [] };
  const option = (name: string, spec: unknown): void => {
    const o = asObject(spec);
    const type =
      o.type === 'string' || o.type === 'number' || o.type === 'boolean'
        ? o.type
        : o.boolean === true
          ? 'boolean'
          : undefined;
    const existing = rec.options.findIndex((r) => r.name === name);
    const recorded: RecordedOption = {
      name,
      aliases: strings(o.alias),
      type,
      choices: strings(o.choices),
      // A default the parser leaves unset (so the config file can fill it) is still documented.
      default: o.default ?? o.defaultDescription,
      describe: text(o),
      array: o.array === true || o.type === 'array',
      hidden: o.hidden === true,
    };
    if (existing === -1) rec.options.push(recorded);
    else rec.options[existing] = recorded;
  };
  const handlers: Record<string, (...args: unknown[]) => void> = {
    option: (name, spec) => option(String(name), spec),
    options: (name, spec) => {
      if (typeof name === 'string') option(name, spec);
      else for (const [k, v] of Object.entries(asObject(name))) option(k, v);
    },
    positional: (name, spec) => {
      const o = asObject(spec);
      rec.positionals.push({ name: String(name), describe: text(o), choices: strings(o.choices) });
    },
    example: (command, describe) => {
      if (typeof command === 'string') rec.examples.push({ command, describe: String(describe ?? '') });
    },
  };
  const recorder: Argv = new Proxy(Object.create(null) as Argv, {
    get:
      (_target, prop) =>
      (...args: unknown[]) => {
        if (typeof prop === 'string') handlers[prop]?.(...args);
        return recorder;
      },
  });
  build(recorder);
  return rec;
}
