import { usageError } from '../errors.js';
import { parseGatesFile } from '../input/gates-file.js';
import { renderTemplate, type Template } from '../input/template.js';
import type { Gates } from '../council/verdict.js';
import type { BatchItem } from './items.js';

/** An item with its prompt filled: what runs, checked for every item before the first is sent. */
export interface ResolvedItem {
  id: string;
  index: number;
  prompt: string;
  files: string[];
  system?: string;
  policy?: string;
  model?: string;
  agents?: string[];
  rounds?: number;
  gates?: Gates;
  /** From the template's front matter, when the command line gives no --schema. */
  schema?: string;
}

/**
 * Fills each item's template (exit 2 naming the item and the variable: one missing, or given
 * and used nowhere, since a misspelt CSV column would otherwise run every item with a blank).
 */
export function resolveItems(items: readonly BatchItem[], template: Template | undefined): ResolvedItem[] {
  return items.map((item) => resolveItem(item, template));
}

function resolveItem(item: BatchItem, template: Template | undefined): ResolvedItem {
  const o = item.overrides;
  const out: ResolvedItem = { id: item.id, index: item.index, prompt: '', files: o.files ?? [] };
  if (template === undefined) {
    const extra = Object.keys(item.vars)[0];
    if (extra !== undefined)
      throw usageError(
        `item '${item.id}' (line ${item.line}) gives variable '${extra}' but there is no --template`,
        'add --template FILE with {{' + extra + '}} in it',
      );
    if (item.prompt === undefined || item.prompt.trim() === '')
      throw usageError(
        `item '${item.id}' (line ${item.line}) has no prompt`,
        'give it a "prompt", or use --template FILE',
      );
    out.prompt = item.prompt;
  } else {
    if (item.prompt !== undefined)
      throw usageError(
        `item '${item.id}' (line ${item.line}) gives a prompt and --template fills one`,
        'give one of them',
      );
    const r = renderTemplate(template, item.vars);
    if (!r.ok) {
      const variable = r.errors[0]?.variable ?? '?';
      throw usageError(
        `item '${item.id}' (line ${item.line}): the template uses {{${variable}}}, which it does not give`,
      );
    }
    const unused = r.unused[0];
    if (unused !== undefined)
      throw usageError(
        `item '${item.id}' (line ${item.line}): variable '${unused}' is not used by template ${template.source}`,
        'a misspelt variable would leave its placeholder blank; rename or drop it',
      );
    out.prompt = r.prompt;
    out.files = [...r.files, ...out.files];
    if (r.system !== undefined) out.system = r.system;
    if (r.policy !== undefined) out.policy = r.policy;
    if (r.schema !== undefined) out.schema = r.schema;
  }
  if (o.system !== undefined) out.system = o.system;
  if (o.policy !== undefined) out.policy = o.policy;
  if (o.model !== undefined) out.model = o.model;
  if (o.agents !== undefined) out.agents = o.agents;
  if (o.rounds !== undefined) out.rounds = o.rounds;
  if (o.gates !== undefined) out.gates = parseGatesFile(JSON.stringify(o.gates), `item ${item.id}`);
  return out;
}
