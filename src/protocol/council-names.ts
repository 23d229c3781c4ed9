/** An agent's name as --agents, the config key `agents` and a batch item name it. */
export const AGENT_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** A comma-separated list as written (`A, B,,C`): its words trimmed, the empty ones dropped. */
export function commaList(text: string): string[] {
  return text
    .split(',')
    .map((a) => a.trim())
    .filter((a) => a !== '');
}
