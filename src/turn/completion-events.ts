import { isUsableCall } from '../api/index.js';
import type { StreamEvent } from '../events/events.js';
import type { ChatCompletion } from '../protocol/wire.js';

/**
 * A blocking `chat.completion` (--no-stream) seen as the events a stream would have carried,
 * so the renderers and the recorder have one input shape.
 */
export function completionEvents(completion: ChatCompletion, headerJobId: string | undefined): StreamEvent[] {
  const events: StreamEvent[] = [];
  const jobId = headerJobId ?? completion.nsed_metadata?.session_id;
  if (jobId !== undefined && jobId !== '') events.push({ type: 'job', job_id: jobId, index: 1 });
  const choice = completion.choices.find((c) => c.index === 0) ?? completion.choices[0];
  const content = choice?.message.content;
  if (typeof content === 'string' && content !== '') events.push({ type: 'text', text: content, index: 1 });
  for (const call of choice?.message.tool_calls ?? []) {
    // The stream's rule: a call without an id, a name or JSON arguments is never surfaced.
    if (!isUsableCall(call.id, call.function.name, call.function.arguments)) continue;
    events.push({
      type: 'tool-call',
      id: call.id,
      name: call.function.name,
      arguments: call.function.arguments,
      index: 1,
    });
  }
  const end: StreamEvent = { type: 'end', finish_reason: choice?.finish_reason ?? 'stop', index: 1 };
  if (completion.nsed_metadata?.mode !== undefined) end.mode = completion.nsed_metadata.mode;
  events.push(end);
  return events;
}
