/** The exit-code table of design.md §3; the only place these numbers are written. */
export const ExitCode = {
  ok: 0,
  bug: 1,
  usage: 2,
  notFound: 3,
  auth: 4,
  server: 5,
  network: 6,
  conflict: 7,
  store: 8,
  timeout: 124,
  sighup: 129,
  interrupted: 130,
  terminated: 143,
} as const;

export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];
