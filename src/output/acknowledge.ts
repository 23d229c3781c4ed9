import type { EventOf } from '../events/events.js';
import type { IO } from '../terminal/io.js';
import type { OutputMode } from './modes.js';
import { createRenderer } from './renderer.js';
import { assertStdoutWritten } from './session-write.js';

/**
 * The whole output of a command that acknowledges instead of following a turn (`inject
 * --no-wait`, `cancel`), in the chosen mode: a line on stderr (text), its one terminal NDJSON
 * event (ndjson), the event as one object (json), nothing (final: there is no answer).
 */
export async function acknowledge(mode: OutputMode, io: IO, event: EventOf<'injected' | 'cancelled'>): Promise<void> {
  const renderer = await createRenderer(mode, io);
  renderer.onEvent(event);
  await renderer.close();
  await assertStdoutWritten(io);
}
