import { createHash } from 'node:crypto';
import type { Context } from '../../run/context.js';
import { boundsOf } from '../../files/read-input.js';
import { canonicalJson } from '../../protocol/canonical-json.js';
import type { ToolDefinition } from '../../protocol/wire.js';
import type { Attachment } from '../../session/index.js';
import { offeredDefinitions } from '../../tools/declared.js';
import { councilChoice } from '../turn-options.js';
import { askedModel, loadDeclaredTools, type TurnOptions } from '../turn-options.js';

/**
 * "The same request", defined once (docs/architecture.md): what a turn asks, as the
 * orchestrator would be asked it. `--idempotency-key` names a turn by it and `nsed batch
 * --resume` knows an item's line by it (docs/ci.md "Re-runs that never pay twice", "Batches").
 * Each field is fed by the flags marked `shapesRequest` in the flag table (flag-def.ts), and a
 * test fails when one of them leaves the hash unchanged.
 *
 * Outside it, on purpose: gates (--min-convergence, --gates ...) and reports judge or show an
 * answer without changing the question, so the same question under other gates is the same
 * request (its recorded verdict is judged again); so are output modes, timeouts, --title,
 * --no-save, --no-stream and the number of tool calls or corrective turns nsed allows. So is the
 * spend cap (--max-cost, --max-tokens, --allow-unmetered): a ceiling on what nsed lets the
 * deliberation spend, not a part of what it asks, so a re-run under another cap finds the same job.
 */
export interface RequestIdentity {
  /** The version of this description: a change of what it holds changes every hash. */
  v: 1;
  /** The prompt as sent: the words (or the template's rendering), piped context, and the -f files below them. */
  prompt: string;
  /** The SHA-256 of each attached file's content, in order. */
  files: string[];
  /** The model string sent: -m as given, else the policy's (`nsed:deep`). */
  model: string;
  /** The council chosen with --agents and --rounds, else the config file's. */
  agents: string[] | undefined;
  rounds: number | undefined;
  system: string | null;
  /** The tools offered (--tools, --tool, --ask-user), as sent. */
  tools: ToolDefinition[];
  /** --schema as compiled, with its name (--schema-name). */
  schema: { name: string; schema: unknown } | null;
}

/** What a turn asks, once everything it sends is read (ask, or one batch item). */
export interface AskedRequest {
  prompt: string;
  attachments: readonly Attachment[];
  turn: TurnOptions;
}

export async function describeRequest(ctx: Context, request: AskedRequest): Promise<RequestIdentity> {
  const opts = request.turn;
  const { agents, rounds } = councilChoice(opts, ctx.globals.settings);
  const declared = await loadDeclaredTools(opts, undefined, boundsOf(ctx));
  return {
    v: 1,
    prompt: request.prompt,
    files: request.attachments.map((a) => a.sha256),
    model: askedModel(opts, ctx.globals.settings),
    agents,
    rounds,
    system: opts.system ?? null,
    tools: declared === undefined ? [] : offeredDefinitions(declared),
    schema: opts.schema === undefined ? null : { name: opts.schema.name, schema: opts.schema.schema },
  };
}

/** SHA-256, hex, of the canonical JSON of what the turn asks. */
export async function requestHash(ctx: Context, request: AskedRequest): Promise<string> {
  return sha256(canonicalJson(await describeRequest(ctx, request)));
}

export const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');
