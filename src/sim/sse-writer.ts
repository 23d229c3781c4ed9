import type { ServerResponse } from 'node:http';
import type { FaultSpec } from './faults.js';
import { DONE, type Job, type StreamView } from './job.js';
import type { TimerSet } from './timers.js';

export interface StreamOptions {
  faults: FaultSpec;
  keepaliveMs: number;
  timers: TimerSet;
  headers: Record<string, string>;
  /** Which view-specific log entries this stream shows (see LogEntry.view). */
  view: StreamView;
  /** Log index to start at (a compat follow-up starts after the segment it answers). */
  from?: number;
  /** A frame sent before the log, e.g. the role chunk that opens a follow-up answer. */
  prelude?: string;
  /** The data of a frame sent just before `[DONE]` (`stream_options.include_usage`). */
  beforeDone?: () => string;
}

/**
 * Serves a job's log as SSE from `from` (default: the beginning), then follows it live until `[DONE]`. The
 * stream faults (drop, stall, malformed, eof-without-done) act on this connection only; the
 * job itself runs on regardless.
 */
export function streamJob(res: ServerResponse, job: Job, opts: StreamOptions): void {
  const { faults, timers } = opts;
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    'x-accel-buffering': 'no',
    ...opts.headers,
  });
  res.flushHeaders();
  const stallAfter = faults.stallMs === undefined ? undefined : (faults.stallAfter ?? 2);
  let cursor = opts.from ?? 0;
  let sent = 0;
  let stalled = false;
  let closed = false;
  let keepalive: NodeJS.Timeout | undefined;

  // A drop destroys the socket only once the last frame has reached the kernel, so the client
  // sees exactly N events and then a reset, never a half-sent frame.
  const stop = (how: 'end' | 'drop', lastFrame = ''): void => {
    if (closed) return;
    closed = true;
    unwatch();
    timers.cancel(keepalive);
    if (how === 'end') res.end(lastFrame);
    else res.write(lastFrame, () => res.socket?.destroy());
  };
  const armKeepalive = (): void => {
    timers.cancel(keepalive);
    keepalive = timers.after(opts.keepaliveMs, () => {
      if (closed || stalled) return;
      res.write(': keep-alive\n\n');
      armKeepalive();
    });
  };
  const stall = (): void => {
    stalled = true;
    timers.cancel(keepalive);
    timers.after(faults.stallMs ?? 0, () => {
      stalled = false;
      if (closed) return;
      armKeepalive();
      pump();
    });
  };
  const pump = (): void => {
    let wrote = false;
    while (!closed && !stalled && cursor < job.log.length) {
      const entry = job.log[cursor++];
      if (entry === undefined) break;
      if (entry.close === true) return stop('end');
      if (entry.view !== undefined && entry.view !== opts.view) continue;
      sent += 1;
      wrote = true;
      const data =
        faults.malformedAt === sent ? entry.data.slice(0, Math.max(1, Math.floor(entry.data.length / 2))) : entry.data;
      const frame = `data: ${data}\n\n`;
      if (entry.data === DONE && opts.beforeDone !== undefined)
        return stop('end', `data: ${opts.beforeDone()}\n\n${frame}`);
      if (entry.data === DONE || (faults.eofWithoutDone === true && entry.content)) return stop('end', frame);
      if (faults.dropAfter !== undefined && sent >= faults.dropAfter) return stop('drop', frame);
      res.write(frame);
      if (stallAfter !== undefined && sent === stallAfter) return stall();
    }
    if (wrote && !closed && !stalled) armKeepalive();
  };

  const unwatch = job.watch(pump);
  res.on('close', () => {
    closed = true;
    unwatch();
    timers.cancel(keepalive);
  });
  if (faults.dropAfter === 0) return stop('drop');
  armKeepalive();
  if (opts.prelude !== undefined) res.write(`data: ${opts.prelude}\n\n`);
  if (stallAfter === 0) return stall();
  pump();
}
