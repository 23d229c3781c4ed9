import type { ProgressChoice } from './modes.js';

/** How a run shows its progress on stderr: as before (`live`), as plain lines, or not at all. */
export type ProgressMode = 'live' | 'plain' | 'none';

/** CI runners set `CI` (GitHub Actions and GitLab to `true`); empty or `false` means it is not one. */
export function isCI(env: Readonly<Record<string, string | undefined>>): boolean {
  const v = (env['CI'] ?? '').trim();
  return v !== '' && v.toLowerCase() !== 'false';
}

/** `auto` stays as before, except off a terminal in CI, where a log needs plain lines. */
export function progressMode(
  choice: ProgressChoice,
  env: Readonly<Record<string, string | undefined>>,
  stderrIsTTY: boolean,
): ProgressMode {
  if (choice !== 'auto') return choice;
  return !stderrIsTTY && isCI(env) ? 'plain' : 'live';
}
