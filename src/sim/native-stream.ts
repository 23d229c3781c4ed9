import type { ServerResponse } from 'node:http';
import type { FaultSpec } from './faults.js';
import type { Job, NativeEvent } from './job.js';
import type { TimerSet } from './timers.js';

export interface NativeStreamOptions {
  faults: FaultSpec;
  keepaliveMs: number;
  timers: TimerSet;
}

const frame = (e: NativeEvent): string => `event: ${e.name}\ndata: ${JSON.stringify(e.data)}\n\n`;

/**
 * `GET /job/{id}/stream`: named events as they happen, live only. The subscription is taken
 * before `connected` is written, so a client that checks `/result` after `connected` cannot
 * miss the end; a stream attached after the end sees only keepalives. `job_complete` closes it.
 * The drop fault counts events (connected included) and resets the connection after them.
 */
export function streamNative(res: ServerResponse, job: Job, opts: NativeStreamOptions): void {
  const { faults, timers } = opts;
  let sent = 0;
  let closed = false;
  let keepalive: NodeJS.Timeout | undefined;
  const stop = (how: 'end' | 'drop', last = ''): void => {
    if (closed) return;
    closed = true;
    unlisten();
    timers.cancel(keepalive);
    if (how === 'end') res.end(last);
    else res.write(last, () => res.socket?.destroy());
  };
  const send = (e: NativeEvent): void => {
    if (closed) return;
    sent += 1;
    const text = frame(e);
    if (e.name === 'job_complete') return stop('end', text);
    if (faults.dropAfter !== undefined && sent >= faults.dropAfter) return stop('drop', text);
    res.write(text);
  };
  const arm = (): void => {
    keepalive = timers.after(opts.keepaliveMs, () => {
      if (closed) return;
      res.write(frame({ name: 'keepalive', data: {} }));
      arm();
    });
  };
  const unlisten = job.listen(send);
  res.on('close', () => {
    closed = true;
    unlisten();
    timers.cancel(keepalive);
  });
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' });
  if (faults.dropAfter === 0) return stop('drop');
  send({ name: 'connected', data: 'ok' });
  arm();
}
