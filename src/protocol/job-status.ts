/**
 * `/result` statuses are lowercase words, sometimes with a suffix after `:` (`running: round 2`,
 * `failed: timeout`); other surfaces capitalise them (docs/protocol.md §3.4). Compare the
 * word before the first `:`, case-insensitively.
 */
export function statusWord(status: string): string {
  return (status.split(':')[0] ?? '').trim().toLowerCase();
}

/** Still deliberating: the reference client's job_is_active, plus `queued` seen on a hosted server. */
export function isLiveStatus(status: string): boolean {
  return ['pending', 'claimed', 'running', 'queued'].includes(statusWord(status));
}
