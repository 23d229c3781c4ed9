import { readFile } from 'node:fs/promises';
import { usageError } from '../errors.js';
import type { ToolDefinition } from '../protocol/wire.js';

/** Options of every command that runs a turn (ask, continue, fork). */
export interface TurnOptions {
  policy: string | undefined;
  /** -m: the model string sent as given (a plain OpenAI-compatible server); excludes `policy`. */
  model?: string | undefined;
  system: string | undefined;
  title: string | undefined;
  stream: boolean;
  /** false (--no-save): the turn runs and prints, and nothing is written to the store. */
  save?: boolean;
  agents: string[] | undefined;
  rounds: number | undefined;
  toolsFile: string | undefined;
}

/** --tools FILE: an array of OpenAI function tools (or `{"tools": [...]}`). */
export async function loadTools(file: string | undefined): Promise<ToolDefinition[] | undefined> {
  if (file === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(file, 'utf8'));
  } catch (err) {
    const why = (err as NodeJS.ErrnoException).code ?? 'not valid JSON';
    throw usageError(`cannot read --tools ${file}: ${why}`, 'give a JSON array of {"type":"function","function":{"name":...}} objects');
  }
  const list = Array.isArray(parsed) ? parsed : (parsed as { tools?: unknown } | null)?.tools;
  if (!Array.isArray(list)) throw usageError(`--tools ${file} holds no array of tools`);
  return list.map((t, i) => {
    const fn = (t as { function?: { name?: unknown } } | null)?.function;
    if (typeof fn?.name !== 'string' || fn.name === '') throw usageError(`tool #${i + 1} in ${file} has no function name`);
    return t as ToolDefinition;
  });
}
