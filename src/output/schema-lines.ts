/**
 * The one sentence for an answer that does not match --schema (exit 14): the error line on
 * stderr and `error.message` of `-o json` say the same (docs/reliability.md #114).
 */
export function schemaMismatchMessage(errors: number, retries: number): string {
  const tries = retries === 0 ? '' : `, after ${retries} corrective turn${retries === 1 ? '' : 's'}`;
  return `the answer does not match --schema (${errors} error${errors === 1 ? '' : 's'}${tries})`;
}
