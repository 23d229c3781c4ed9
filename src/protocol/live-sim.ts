/**
 * An in-process simulator (--sim): where it listens, and the process that serves it. A pending
 * marker records it, so a second terminal reaches the job there while that process lives.
 */
export interface LiveSim {
  url: string;
  pid: number;
}
