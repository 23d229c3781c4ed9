import type { Context } from '../run/context.js';
import { createRenderer, endsAtTerminalEvent, type Renderer, type RendererOptions } from '../output/renderer.js';
import { redactingRenderer } from '../output/shown-event.js';

/**
 * Where a turn run under `ctx` shows its events: the output mode's renderer, or, for a caller that
 * takes them as values (Context.renderer: an MCP tool call), the caller's own, given them as any
 * mode shows them (the run's secrets redacted everywhere but in the answer) and ended at the
 * turn's terminal event. One seam for every turn: a new one, a follow, a replay and a watch.
 */
export function turnRenderer(ctx: Context, opts: RendererOptions): Promise<Renderer> {
  const own = ctx.renderer;
  if (own === 'none') return Promise.resolve(SHOWS_NOTHING);
  if (own !== undefined) return Promise.resolve(redactingRenderer(endsAtTerminalEvent(own()), ctx.io.secrets));
  return createRenderer(ctx.globals.settings.output.value, ctx.io, opts);
}

/**
 * A turn whose events nobody sees (a batch item): nothing is rendered, redacted or written. An
 * output mode's renderer over a discarded stream would still pass every event through the
 * redaction, a walk of each round, ballot and claim, for output no one reads.
 */
const SHOWS_NOTHING: Renderer = { onEvent: () => undefined, close: () => Promise.resolve() };
