// Writes a full run's figures to bench/results.json and into the generated block of
// bench/RESULTS.md, leaving the hand-written analysis around that block as it is.
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { formatValue } from './figure.mjs';

const JSON_FILE = fileURLToPath(new URL('../results.json', import.meta.url));
const MD_FILE = fileURLToPath(new URL('../RESULTS.md', import.meta.url));
const START = '<!-- figures:start (written by npm run bench) -->';
const END = '<!-- figures:end -->';

const cell = (v) => String(v).replaceAll('|', '\\|');

function table(run) {
  const rows = run.figures.map((f) => {
    if (f.skipped || f.error)
      return `| ${cell(f.name)} | ${f.skipped ? 'skipped' : 'error'} | | | | | ${cell((f.skipped ?? f.error).split('\n')[0])} |`;
    const target = f.target ? `${f.target.text}: ${f.target.ok ? 'ok' : '**missed**'}` : '';
    return `| ${cell(f.name)} | ${f.ratio.toFixed(2)} | ${formatValue(f.nsed_median, f.unit)} | ${formatValue(f.floor_median, f.unit)} (${cell(f.floor)}) | ${f.runs} | ${cell(target)} | ${cell(f.note ?? '')} |`;
  });
  return [
    START,
    `Last full run: ${run.date}, Node ${run.node} on ${run.cpus} × ${cell(run.cpu_model)}, load average ${run.loadavg_start.join(' ')} and a file create ${run.create_us_start} µs at the start;`,
    `a fixed loop (bench/lib/host-speed.mjs) ${run.loop_ms_start} ms at the start and ${run.loop_ms_end} ms at the end, a fresh 4 KiB page ${run.fresh_page_us_start ?? 'not measured'} µs;`,
    `NODE_EXTRA_CA_CERTS ${run.node_extra_ca_certs ? 'set' : 'not set'}; wall time ${run.wall_s} s.`,
    '',
    '| figure | ratio | nsed median | floor median | runs | target | also |',
    '|---|---|---|---|---|---|---|',
    ...rows,
    END,
  ].join('\n');
}

export async function writeReport(run) {
  await writeFile(JSON_FILE, `${JSON.stringify(run, null, 2)}\n`);
  const block = table(run);
  const md = existsSync(MD_FILE) ? await readFile(MD_FILE, 'utf8') : `# Benchmark results\n\n${START}\n${END}\n`;
  const from = md.indexOf(START);
  const to = md.indexOf(END);
  const next =
    from >= 0 && to > from ? md.slice(0, from) + block + md.slice(to + END.length) : `${md.trimEnd()}\n\n${block}\n`;
  await writeFile(MD_FILE, next);
}
