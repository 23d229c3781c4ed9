// The only module that touches `process`: argv in, exit code out.
import { readFileSync } from 'node:fs';

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
  process.stdout.write(`${pkg.version}\n`);
} else {
  process.stderr.write('nsed: the command-line frame is being assembled\n');
  process.exitCode = 1;
}
