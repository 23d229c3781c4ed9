import { REVIEW_SCHEMA, REVIEW_SCHEMA_NAME } from './review-schema.js';
import { usageError } from '../errors.js';
import { oneLine } from '../terminal/sanitize.js';
import type { AnswerSchema } from '../turn/schema/answer-schema.js';
import { parseTemplate, parseVarFlag, renderTemplate, varsObject, type RenderedTemplate } from './template.js';
import type { TurnOptions } from '../turn/turn-options.js';
import { readAttachments, withAttachments, type ReadAttachment } from './attachments.js';
import { readFlagFile, readPrompt, type PromptContext } from './prompt.js';

/** What a turn is made of beyond its words (ask, continue, fork): files, a schema, a template. */
export interface InputOptions {
  files: string[];
  schema: string | undefined;
  schemaName: string | undefined;
  schemaRetries: number;
  template: string | undefined;
  /** `--var NAME=VALUE` as given. */
  vars: string[];
  varsFile: string | undefined;
}

/** What a turn sends, assembled from its words, template, files and schema before anything is sent. */
export interface TurnInput {
  prompt: string;
  attachments: ReadAttachment[];
  /** The turn options with what the template's front matter and --schema add. */
  turn: TurnOptions;
}

/** Whether the command line names a prompt at all (words or a template): fork without one only branches. */
export const namesPrompt = (words: readonly string[], input: InputOptions): boolean =>
  words.length > 0 || input.template !== undefined;

/**
 * The turn's input, in this order: the template rendered (its variables checked), the schema
 * compiled (an invalid one is exit 2 here, before any request), the prompt read (words, `-`,
 * piped context), then the files attached below it. Flags win over the front matter.
 */
export async function prepareTurnInput(
  words: readonly string[],
  input: InputOptions,
  turn: TurnOptions,
  ctx: PromptContext,
): Promise<TurnInput> {
  let rendered: RenderedTemplate | undefined;
  if (input.template !== undefined) {
    if (words.length > 0)
      throw usageError(
        'give either prompt words or --template, not both',
        'put the words in the template, or in a --var',
      );
    rendered = await loadTemplate(input, ctx);
  }
  const schemaSource = input.schema ?? rendered?.schema;
  const schema =
    schemaSource === undefined ? undefined : await loadSchema(schemaSource, input.schemaName, input.schemaRetries, ctx);
  const files = [...(rendered?.files ?? []), ...input.files];
  const stdinIsFile = files.includes('-');
  const promptWords = rendered === undefined ? words : [rendered.prompt];
  if (stdinIsFile && (promptWords.length === 0 || promptWords.includes('-')))
    throw usageError(
      '-f - reads standard input, so it cannot also be the prompt',
      'give the question as words: nsed ask -f - "what does this say?"',
    );
  // With -f - the pipe is that file, not context to wait 500 ms for.
  const question = await readPrompt(promptWords, ctx, { context: !stdinIsFile });
  const attachments = await readAttachments(files, ctx);
  const system = turn.system ?? rendered?.system;
  const policy = turn.policy ?? (turn.model === undefined ? rendered?.policy : undefined);
  const out: TurnOptions = { ...turn, system, policy };
  if (schema !== undefined) out.schema = schema;
  return { prompt: withAttachments(question, attachments), attachments, turn: out };
}

/** Flags that need a prompt to act on, refused where there is none (fork that only branches). */
export function assertNoInputWithoutPrompt(input: InputOptions): void {
  if (input.files.length > 0 || input.schema !== undefined)
    throw usageError('-f and --schema need a prompt to run on the fork', 'add the prompt words after the session id');
}

async function loadTemplate(input: InputOptions, ctx: PromptContext): Promise<RenderedTemplate> {
  const path = input.template ?? '';
  const template = parseTemplate(await readFlagFile(path, '--template', ctx), path);
  let vars: Record<string, string> = {};
  if (input.varsFile !== undefined) {
    const text = await readFlagFile(input.varsFile, '--vars', ctx);
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (err) {
      throw usageError(`--vars ${input.varsFile} is not valid JSON: ${(err as Error).message.slice(0, 120)}`);
    }
    vars = varsObject(raw, `--vars ${input.varsFile}`);
  }
  for (const spec of input.vars) {
    const [name, value] = parseVarFlag(spec);
    vars[name] = value;
  }
  const result = renderTemplate(template, vars);
  if (!result.ok) {
    const [first, ...more] = result.errors;
    const also = more.length === 0 ? '' : ` (also ${more.map((e) => `{{${e.variable}}}`).join(', ')})`;
    throw usageError(
      `${first?.message ?? 'the template has unfilled placeholders'}${also}`.slice(0, 400),
      `give it: --var ${first?.variable ?? 'NAME'}=VALUE`,
    );
  }
  for (const name of result.unused)
    ctx.io.stderr.write(
      `nsed: warning: variable '${oneLine(name, 60)}' is not used by template ${oneLine(path, 200)}\n`,
    );
  return result;
}

/**
 * A --schema: a value that is JSON (starts with `{` or `[`, or parses whole) is the schema itself,
 * so `[1]` is refused as "not an object" rather than looked for as a file; anything else names
 * a file (README "Structured answers"). A file whose name reads as JSON is named `./1`. `review`
 * is the code-review schema nsed ships (docs/ci.md "Findings on the changed lines"): a file named so is `./review`.
 */
async function loadSchema(
  source: string,
  name: string | undefined,
  retries: number,
  ctx: PromptContext,
): Promise<AnswerSchema> {
  if (source === REVIEW_SCHEMA_NAME) {
    const { compileAnswerSchema } = await import('../turn/schema/schema-compile.js');
    return compileAnswerSchema(REVIEW_SCHEMA, { name, retries, source: 'review (built in)' });
  }
  const inline = isJsonValue(source);
  const text = inline ? source : await readFlagFile(source, '--schema', ctx);
  const label = inline ? '(inline)' : source;
  let schema: unknown;
  try {
    schema = JSON.parse(text);
  } catch (err) {
    throw usageError(`--schema ${label} is not valid JSON: ${(err as Error).message.slice(0, 120)}`);
  }
  const { compileAnswerSchema } = await import('../turn/schema/schema-compile.js');
  return compileAnswerSchema(schema, { name, retries, source: label });
}

function isJsonValue(source: string): boolean {
  const t = source.trim();
  if (t.startsWith('{') || t.startsWith('[')) return true;
  try {
    JSON.parse(t);
    return true;
  } catch {
    return false;
  }
}
