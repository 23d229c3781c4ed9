import { NsedError } from '../errors.js';
import { createEventStream, type EventStream } from './event-stream.js';
import { errorForStatus, headerValue, type StatusContext } from './http-errors.js';
import { sanitizeServerText } from './redact.js';
import { discard, readErrorBody, send, type Sent, type SendSpec, type Transport } from './transport.js';

/** Per-request wording for the status table: what a 404 or a 409 means here. */
export type Describe = Pick<StatusContext, 'subject' | 'conflict' | 'model'>;

export async function statusError(t: Transport, sent: Sent, method: string, describe: Describe): Promise<NsedError> {
  const body = await readErrorBody(sent);
  return errorForStatus({
    status: sent.res.statusCode,
    headers: sent.res.headers,
    body,
    method,
    path: sent.path,
    url: sent.url,
    token: t.token,
    now: t.now,
    ...describe,
  });
}

function isEventStream(contentType: string | undefined): boolean {
  // The MIME type alone, case-insensitively: parameters such as charset do not matter (docs/reliability.md #16).
  return (contentType ?? '').split(';')[0]?.trim().toLowerCase() === 'text/event-stream';
}

/**
 * A request whose 2xx answer is an SSE stream (chat completions, resume, the native job
 * stream): statuses go
 * through the table, a 2xx that is not an event stream is refused with a bounded excerpt
 * (docs/reliability.md #15), and 204 means there is nothing left to stream (docs/reliability.md #32).
 */
export async function openStream(
  t: Transport,
  spec: Omit<SendSpec, 'accept' | 'bodyTimeoutMs'>,
  describe: Describe & { maxEventBytes: number; noStream204?: string; native?: boolean },
): Promise<EventStream> {
  const sent = await send(t, { ...spec, accept: 'text/event-stream', bodyTimeoutMs: 0 });
  const { statusCode, headers } = sent.res;
  if (statusCode < 200 || statusCode >= 300) throw await statusError(t, sent, spec.method, describe);
  if (statusCode === 204) {
    sent.guard.dispose();
    discard(sent.res.body);
    if (describe.noStream204 !== undefined)
      throw new NsedError('conflict', `${describe.noStream204} (204)`, { status: 204 });
    throw new NsedError('server', `the orchestrator answered ${spec.method} ${sent.path} with 204 and no stream`, {
      status: 204,
    });
  }
  const contentType = headerValue(headers, 'content-type');
  if (!isEventStream(contentType)) {
    const excerpt = sanitizeServerText(await readErrorBody(sent), t.token, 120);
    const mime = contentType === undefined ? 'no Content-Type' : sanitizeServerText(contentType, t.token, 60);
    throw new NsedError(
      'server',
      `the orchestrator answered ${statusCode} with ${mime} instead of an event stream${excerpt === '' ? '' : `: ${excerpt}`}`,
      {
        status: statusCode,
        hint: 'check --url: a proxy or web server may be answering instead of the orchestrator',
      },
    );
  }
  const jobId = headerValue(headers, 'x-nsed-session-id');
  return createEventStream(t, sent, {
    jobId: jobId === undefined || jobId === '' ? undefined : jobId,
    maxEventBytes: describe.maxEventBytes,
    ...(describe.native === true ? { native: true } : {}),
  });
}
