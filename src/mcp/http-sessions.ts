import type { ServerResponse } from 'node:http';

/** At most this many MCP sessions over Streamable HTTP at once: a host opens one per connection. */
export const MAX_HTTP_SESSIONS = 64;
/** A session no request has reached for this long, none in flight, is closed: its host left without a DELETE. */
export const HTTP_SESSION_IDLE_MS = 60 * 60_000;

/** What a session holds that must be let go: its transport (closing it closes its MCP server). */
export interface Closable {
  close(): Promise<void>;
}

interface Entry<T extends Closable> {
  transport: T;
  /** When a request last reached it or last ended, on the server's clock. */
  seen: number;
  /** Requests in flight: a listening GET stream or a tool call that waits. A busy session is never idle. */
  busy: number;
}

/**
 * The live MCP sessions of `nsed mcp --http`, bounded in number and in idle time, so that a host
 * (or anything holding the token) that opens sessions and never closes them cannot grow the
 * server without end. Expiry is checked when a request arrives, on the injected clock: nothing
 * here waits on a timer.
 */
export class HttpSessions<T extends Closable> {
  private readonly live = new Map<string, Entry<T>>();

  constructor(
    private readonly now: () => number,
    private readonly limits: { max: number; idleMs: number } = { max: MAX_HTTP_SESSIONS, idleMs: HTTP_SESSION_IDLE_MS },
  ) {}

  get size(): number {
    return this.live.size;
  }

  add(id: string, transport: T): void {
    this.live.set(id, { transport, seen: this.now(), busy: 0 });
  }

  /** Forgets a session its transport closed by itself (a DELETE, the server closing). */
  forget(id: string): void {
    this.live.delete(id);
  }

  /** The session's transport, busy until `res` closes; undefined for an id not live (never made, expired, closed). */
  use(id: string, res: ServerResponse): T | undefined {
    const e = this.live.get(id);
    if (e === undefined) return undefined;
    e.busy += 1;
    e.seen = this.now();
    res.once('close', () => {
      e.busy -= 1;
      e.seen = this.now();
    });
    return e.transport;
  }

  /** Closes every session idle past its time. */
  async expire(): Promise<void> {
    const now = this.now();
    const idle = [...this.live].filter(([, e]) => e.busy === 0 && now - e.seen >= this.limits.idleMs);
    await Promise.allSettled(idle.map(([id]) => this.close(id)));
  }

  /**
   * Room for one more session: when all places are taken, the one idle longest (nothing in
   * flight) is closed, as the likeliest left behind. False when every session is busy.
   */
  async makeRoom(): Promise<boolean> {
    await this.expire();
    if (this.live.size < this.limits.max) return true;
    let oldest: [string, Entry<T>] | undefined;
    for (const entry of this.live)
      if (entry[1].busy === 0 && (oldest === undefined || entry[1].seen < oldest[1].seen)) oldest = entry;
    if (oldest === undefined) return false;
    await this.close(oldest[0]);
    return true;
  }

  async closeAll(): Promise<void> {
    await Promise.allSettled([...this.live.keys()].map((id) => this.close(id)));
  }

  private async close(id: string): Promise<void> {
    const e = this.live.get(id);
    this.live.delete(id);
    await e?.transport.close();
  }
}
