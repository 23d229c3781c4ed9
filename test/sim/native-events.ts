import { createParser } from 'eventsource-parser';

export interface Named {
  event: string;
  data: unknown;
}

/** Opens the native stream and collects named events; `stopWhen` ends reading early. */
export async function openNative(url: string, id: string) {
  const res = await fetch(`${url}/job/${id}/stream`);
  const events: Named[] = [];
  const waiters: Array<{ check: () => boolean; resolve: () => void }> = [];
  const parser = createParser({
    onEvent: (e) => {
      events.push({ event: e.event ?? 'message', data: JSON.parse(e.data) as unknown });
      for (const w of waiters.splice(0)) {
        if (w.check()) w.resolve();
        else waiters.push(w);
      }
    },
  });
  const reader = res.body?.getReader();
  const decoder = new TextDecoder();
  const done = (async () => {
    for (;;) {
      const chunk = await reader?.read();
      if (!chunk || chunk.done) return;
      parser.feed(decoder.decode(chunk.value, { stream: true }));
    }
  })();
  const until = (check: () => boolean): Promise<void> =>
    check() ? Promise.resolve() : new Promise((resolve) => waiters.push({ check, resolve }));
  return { res, events, done, until, names: () => events.map((e) => e.event), close: () => reader?.cancel() };
}

/**
 * Submits a native deliberation to a simulator started with `hold`, attaches its named-event
 * stream before the job may move, then lets it run to its end: the events it sent.
 */
export async function runHeldNative(
  s: { url: string; control: { attached(id: string): Promise<unknown>; release(id: string): void } },
  body: Record<string, unknown> & { room_id: string },
  headers: Record<string, string> = {},
): Promise<Named[]> {
  const res = await fetch(`${s.url}/deliberation`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  if (res.status !== 202) throw new Error(`submit answered ${res.status}: ${await res.text()}`);
  const stream = await openNative(s.url, body.room_id);
  await s.control.attached(body.room_id);
  s.control.release(body.room_id);
  await stream.done;
  return stream.events;
}
