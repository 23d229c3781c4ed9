// What a person sees setting nsed up for a coding agent: `nsed mcp --print-tools` and `nsed mcp
// install` on a pseudo-terminal, drawn by a terminal emulator (reliability #165): the size table
// one row per tool, aligned, none wrapped at 80 columns; the install's lines whole.
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MCP_TOOLS } from '../../src/mcp/tool-defs.js';
import { HAS_PTY, NO_PTY, onScreen, texts } from '../harness/screen.js';
import { tempHome } from '../harness/temp-store.js';

describe.skipIf(!HAS_PTY)(HAS_PTY ? 'nsed mcp set-up on a terminal' : NO_PTY, () => {
  it('--print-tools shows one aligned row per tool and the total, none wrapped, at 80 columns (reliability #165)', async () => {
    const r = await onScreen(['mcp', '--print-tools'], { columns: 80, env: { HOME: await tempHome() } }).result;
    expect(r.code, texts(r.rows).join('\n')).toBe(0);
    expect(r.problems).toEqual([]);
    expect(r.rows.filter((row) => row.wrapped)).toEqual([]);
    const rows = texts(r.rows).filter((t) => t !== '');
    expect(rows).toHaveLength(MCP_TOOLS.length + 1);
    expect(rows.slice(0, -1).map((t) => t.split(' ')[0])).toEqual(MCP_TOOLS.map((t) => t.name));
    // The byte counts end in one column: each row is as wide as the others.
    expect(new Set(rows.slice(0, -1).map((t) => t.length)).size).toBe(1);
    expect(rows.at(-1)).toMatch(/^tools\/list: [\d,]+ bytes of JSON, about [\d,]+ tokens \(9 tools\)$/);
  });

  it('install says where it wrote and what ends a long call; the second run says nothing changed', async () => {
    const home = await tempHome();
    await mkdir(path.join(home, 'h'));
    const env = { HOME: path.join(home, 'h') };
    const file = path.join(home, 'h', '.codex', 'config.toml');
    const first = await onScreen(['mcp', 'install', 'codex'], { columns: 120, env }).result;
    expect(first.code, texts(first.rows).join('\n')).toBe(0);
    expect(first.problems).toEqual([]);
    expect(texts(first.rows).filter((t) => t !== '')).toEqual([
      `added nsed to ${file}`,
      'Codex ends a tool call after tool_timeout_sec (set to 120 s; about 60 s by default)',
    ]);
    const second = await onScreen(['mcp', 'install', 'codex'], { columns: 120, env }).result;
    expect(texts(second.rows).filter((t) => t !== '')).toEqual([
      `nsed is already in ${file} as it would be written: nothing changed`,
    ]);
  });
});
