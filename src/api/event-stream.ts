import { NsedError } from '../errors.js';
import type { StreamEvent } from '../events/events.js';
import { IdleWatch } from './request-guard.js';
import { createNativeProcessor } from './native-processor.js';
import { createStreamProcessor } from './stream-processor.js';
import { discard, type Sent, type Transport } from './transport.js';

export interface EventStream extends AsyncIterable<StreamEvent> {
  /** From the x-nsed-session-id response header. */
  readonly jobId: string | undefined;
  /** Stop reading and destroy the socket; iteration ends quietly. */
  abort(): void;
  /**
   * The same events, one array per network read: a hot loop pays one promise resumption per
   * read instead of one per event. Use this or the plain
   * iterator, once.
   */
  batches(): AsyncIterable<readonly StreamEvent[]>;
}

function resetError(cause: unknown): NsedError {
  return new NsedError('network', 'the connection was reset mid-stream', { drop: 'reset', cause });
}

/**
 * The plain loop over the response body (no web streams: they measured several times slower): bytes -> events, an
 * idle watch that counts every byte (keep-alive comments included, docs/reliability.md #6, #28), and the socket
 * destroyed the moment `[DONE]` arrives, the consumer stops, or anything fails (docs/reliability.md #18).
 */
export function createEventStream(
  t: Transport,
  sent: Sent,
  opts: { jobId: string | undefined; maxEventBytes: number; native?: boolean },
): EventStream {
  const { guard, res } = sent;
  const body = res.body;
  const popts = { maxEventBytes: opts.maxEventBytes, ...(t.token === undefined ? {} : { token: t.token }) };
  const processor = opts.native === true ? createNativeProcessor(popts) : createStreamProcessor(popts);
  const idle = new IdleWatch(t.idleTimeoutMs, t.now, () => guard.abort('idle'));
  let started = false;

  function release(): void {
    idle.stop();
    guard.dispose();
    discard(body);
  }

  async function* run(): AsyncGenerator<readonly StreamEvent[], void, undefined> {
    try {
      if (guard.reason === 'closed') return;
      const ours = guard.abortError(t.idleTimeoutMs);
      if (ours !== undefined) throw ours;
      idle.wait();
      for await (const chunk of body as AsyncIterable<Uint8Array>) {
        idle.hold();
        const out: StreamEvent[] = [];
        let failure: unknown;
        try {
          processor.push(chunk, out);
        } catch (err) {
          failure = err;
        }
        // Let go at `[DONE]` before the caller sees its end and stops: leaving the loop would
        // destroy the body with an AbortError of the loop's own making (discard).
        const done = processor.done;
        if (done) release();
        // Events completed before a failure are real: the caller's cursor includes them.
        if (out.length > 0) yield out;
        if (failure !== undefined) throw failure;
        if (done) return;
        idle.wait();
      }
      idle.hold();
      const out: StreamEvent[] = [];
      let failure: unknown;
      try {
        processor.end(out);
      } catch (err) {
        failure = err;
      }
      if (out.length > 0) yield out;
      if (failure !== undefined) throw failure;
    } catch (err) {
      if (guard.reason === 'closed') return;
      const ours = guard.abortError(t.idleTimeoutMs);
      if (ours !== undefined) throw ours;
      if (err instanceof NsedError) throw err;
      throw resetError(err);
    } finally {
      release();
    }
  }

  const batches = run();
  const claim = (): void => {
    if (started) throw new NsedError('bug', 'an event stream can be iterated only once');
    started = true;
  };
  async function* events(): AsyncGenerator<StreamEvent, void, undefined> {
    for await (const batch of batches) yield* batch;
  }
  return {
    jobId: opts.jobId,
    abort() {
      guard.abort('closed');
      if (!started) release();
    },
    batches() {
      claim();
      return batches;
    },
    [Symbol.asyncIterator]() {
      claim();
      return events();
    },
  };
}
