// What every step of the nsed GitHub Action reads and writes the same way: its inputs (the
// INPUT_* variables the runner sets from action.yml's `with:`) and its outputs ($GITHUB_OUTPUT,
// each value between a delimiter it cannot contain, as GitHub documents for multi-line values).
import { randomBytes } from 'node:crypto';
import { appendFileSync } from 'node:fs';

const env = process.env;

/** An input's value, trimmed; '' when it is not given. */
export const input = (name) => (env[`INPUT_${name.replaceAll('-', '_').toUpperCase()}`] ?? '').trim();

/** An input's non-blank lines, each trimmed. */
export const lines = (name) =>
  input(name)
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');

/** Whether a boolean input is on (`true`, `yes` or `1`, in any case). */
export const truthy = (name) => ['true', 'yes', '1'].includes(input(name).toLowerCase());

/** Appends one step output; nothing outside GitHub Actions. */
export function setOutput(name, value) {
  const file = env['GITHUB_OUTPUT'];
  if (file === undefined || file === '') return;
  let delim;
  do delim = `nsed_${randomBytes(16).toString('hex')}`;
  while (String(value).includes(delim));
  appendFileSync(file, `${name}<<${delim}\n${value}\n${delim}\n`);
}
