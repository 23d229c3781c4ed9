import type { NsedEvent } from '../events/events.js';
import type { Secrets } from '../secrets.js';
import type { Renderer } from './renderer-types.js';

/**
 * The fields of an event that are the answer itself: the server's, shown byte for byte in every
 * mode (docs/usage.md "Secrets"). Everything else an event holds (a claim, a reason, a preview, an
 * agent id, as a value or a key) is what the council said about it.
 */
const ANSWER_FIELDS: Readonly<Partial<Record<NsedEvent['type'], readonly string[]>>> = {
  text: ['text'],
  finish: ['content', 'structured'],
};

/**
 * The event as stdout may show it: every string and key outside the answer with the run's
 * secrets as `***`, the same redaction the store, the reports and stderr apply
 * (docs/reliability.md #89), so `-o json > result.json` keeps no token a server echoed. The
 * event itself when nothing in it changes (most of them).
 */
export function shownEvent(e: NsedEvent, secrets: Secrets): NsedEvent {
  const kept = ANSWER_FIELDS[e.type] ?? [];
  let out: Record<string, unknown> | undefined;
  for (const [key, value] of Object.entries(e)) {
    if (kept.includes(key)) continue;
    const shown: unknown = secrets.redactValue(value);
    if (shown === value) continue;
    // Copied in the event's own key order, so an NDJSON line keeps its shape.
    out ??= { ...e };
    out[key] = shown;
  }
  return (out ?? e) as NsedEvent;
}

/** `inner` shown only what shownEvent leaves of each event. */
export function redactingRenderer(inner: Renderer, secrets: Secrets): Renderer {
  return {
    onEvent: (e) => inner.onEvent(shownEvent(e, secrets)),
    close: () => inner.close(),
  };
}
