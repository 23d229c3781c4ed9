// `nsed mcp install HOST`: the real command, in-process, writing into a scratch home (HOME and
// XDG_CONFIG_HOME pointed at a temp folder) and a scratch project (--dir). Every host is installed
// twice (the second run changes no byte and says so), beside another server's entry (kept in
// meaning), against a different nsed entry (exit 7 without --force), and with --print (nothing
// written). Codex's TOML is checked byte for byte outside nsed's own table.
import { execFileSync } from 'node:child_process';
import { lstatSync } from 'node:fs';
import { mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/errors.js';
import { HOST_NAMES, HOST_TIMEOUT_S, MCP_HOSTS, type HostName } from '../../src/mcp/hosts.js';
import { WAIT_MAX_S } from '../../src/mcp/tool-defs.js';
import { runCliInProcess } from '../harness/cli.js';
import { tempHome } from '../harness/temp-store.js';

interface Scratch {
  home: string;
  project: string;
  env: Record<string, string>;
}

async function scratch(): Promise<Scratch> {
  const root = await tempHome();
  const home = path.join(root, 'home');
  const project = path.join(root, 'project');
  await mkdir(home);
  await mkdir(project);
  // No CODEX_HOME or CLAUDE_CONFIG_DIR: the defaults under HOME are what is tested.
  return { home, project, env: { HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), PATH: '' } };
}

const places = (s: Scratch) => ({ env: s.env, platform: process.platform, projectDir: s.project });
const userFile = (host: HostName, s: Scratch): string => MCP_HOSTS[host].userFile(places(s)) ?? '';
const projectFile = (host: HostName, s: Scratch): string => MCP_HOSTS[host].projectFile(places(s));

const install = (s: Scratch, ...args: string[]) => runCliInProcess(['mcp', 'install', ...args], { env: s.env });

/** Every file under a folder, as relative paths. */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)))
    .sort();
}

/** The object holding the servers in a JSON host's file. */
function serversOf(host: HostName, text: string): Record<string, unknown> {
  let v: unknown = JSON.parse(text);
  for (const k of MCP_HOSTS[host].serversKey) v = (v as Record<string, unknown>)[k];
  return v as Record<string, unknown>;
}

const JSON_HOSTS = HOST_NAMES.filter((h) => MCP_HOSTS[h].format === 'json');

/** What a JSON host's file held before nsed came: another server, and a key of the host's own. */
function otherServerFile(host: HostName): { text: string; other: unknown } {
  const other =
    host === 'opencode'
      ? { type: 'local', command: ['other-mcp', '--flag'], environment: { A: '1' } }
      : { command: 'other-mcp', args: ['--port', '7'], env: { TOKEN_FILE: '/x' } };
  let doc: Record<string, unknown> = { other };
  for (const k of [...MCP_HOSTS[host].serversKey].reverse()) doc = { [k]: doc };
  return { text: `${JSON.stringify({ theme: 'dark', ...doc, zeta: [1, 2.5, null] }, null, 4)}\n`, other };
}

/** Where each host keeps its user configuration on Linux and macOS, under HOME, as its docs say. */
const USER_FILES: Record<HostName, string> = {
  'claude-code': '.claude.json',
  codex: '.codex/config.toml',
  cursor: '.cursor/mcp.json',
  vscode:
    process.platform === 'darwin' ? 'Library/Application Support/Code/User/mcp.json' : '.config/Code/User/mcp.json',
  gemini: '.gemini/settings.json',
  opencode: '.config/opencode/opencode.json',
};

describe('nsed mcp install: every host, into a scratch home', () => {
  it.each(HOST_NAMES)(
    '%s: written once with the timeout above the longest wait; the second run changes nothing',
    async (host) => {
      const s = await scratch();
      const first = await install(s, host);
      expect(first.code, first.stderr).toBe(ExitCode.ok);
      const file = path.join(s.home, USER_FILES[host]);
      expect(first.stdout).toBe(`added nsed to ${file}\n`);
      const written = await readFile(file, 'utf8');

      const second = await install(s, host);
      expect(second.code, second.stderr).toBe(ExitCode.ok);
      expect(second.stdout).toBe(`nsed is already in ${file} as it would be written: nothing changed\n`);
      expect(await readFile(file, 'utf8')).toBe(written);
      // Nothing else appeared in the home: no temp file, no second file.
      expect(await filesUnder(s.home)).toEqual([path.relative(s.home, file)]);

      if (host === 'codex') {
        expect(written).toBe(
          `[mcp_servers.nsed]\ncommand = "nsed"\nargs = ["mcp"]\ntool_timeout_sec = ${HOST_TIMEOUT_S}\n`,
        );
      } else {
        const entry = serversOf(host, written)['nsed'] as Record<string, unknown>;
        expect(entry).toEqual(MCP_HOSTS[host].entry([]));
        if (host === 'gemini') expect(entry['timeout']).toBeGreaterThan(WAIT_MAX_S * 1000);
        if (host === 'opencode')
          expect((entry['timeout'] as { request: number }).request).toBeGreaterThan(WAIT_MAX_S * 1000);
      }
      expect(HOST_TIMEOUT_S).toBeGreaterThan(WAIT_MAX_S);
    },
  );

  it('CODEX_HOME and CLAUDE_CONFIG_DIR move the file where those hosts read it', async () => {
    const s = await scratch();
    const codexHome = path.join(s.home, 'codex-elsewhere');
    const claudeDir = path.join(s.home, 'claude-elsewhere');
    const env = { ...s.env, CODEX_HOME: codexHome, CLAUDE_CONFIG_DIR: claudeDir };
    const codex = await runCliInProcess(['mcp', 'install', 'codex'], { env });
    expect(codex.stdout).toBe(`added nsed to ${path.join(codexHome, 'config.toml')}\n`);
    const claude = await runCliInProcess(['mcp', 'install', 'claude-code'], { env });
    expect(claude.stdout).toBe(`added nsed to ${path.join(claudeDir, '.claude.json')}\n`);
    expect(await filesUnder(s.home)).toEqual(['claude-elsewhere/.claude.json', 'codex-elsewhere/config.toml']);
  });

  it.each(HOST_NAMES)('%s --print writes nothing and prints the entry', async (host) => {
    const s = await scratch();
    const r = await install(s, host, '--print');
    expect(r.code, r.stderr).toBe(ExitCode.ok);
    expect(r.stdout).toContain(host === 'codex' ? '[mcp_servers.nsed]\n' : '"nsed": {');
    expect(r.stderr).toBe(`nsed: nothing written; ${MCP_HOSTS[host].label} reads this from ${userFile(host, s)}\n`);
    expect(await filesUnder(s.home)).toEqual([]);
    const p = await install(s, host, '--project', '--dir', s.project, '--print');
    expect(p.code).toBe(ExitCode.ok);
    expect(await filesUnder(s.project)).toEqual([]);
  });
});

describe('nsed mcp install: beside other servers, in a scratch project', () => {
  it.each(JSON_HOSTS)('%s: another server and the host’s own keys keep their meaning', async (host) => {
    const s = await scratch();
    const file = projectFile(host, s);
    const { text, other } = otherServerFile(host);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, text);

    const r = await install(s, host, '--dir', s.project);
    expect(r.code, r.stderr).toBe(ExitCode.ok);
    const after = await readFile(file, 'utf8');
    const before = JSON.parse(text) as Record<string, unknown>;
    const now = JSON.parse(after) as Record<string, unknown>;
    expect(now['theme']).toBe('dark');
    expect(now['zeta']).toEqual([1, 2.5, null]);
    expect(Object.keys(now)).toEqual(Object.keys(before));
    expect(serversOf(host, after)['other']).toEqual(other);
    expect(Object.keys(serversOf(host, after))).toEqual(['other', 'nsed']);
    // The file's own indentation (4 spaces) is kept.
    expect(after).toMatch(/^ {4}"theme"/m);

    const again = await install(s, host, '--dir', s.project);
    expect(again.stdout).toContain('nothing changed');
    expect(await readFile(file, 'utf8')).toBe(after);
  });

  it.each(JSON_HOSTS)('%s: a different nsed entry is refused (exit 7, file untouched) unless --force', async (host) => {
    const s = await scratch();
    const file = projectFile(host, s);
    const { other } = otherServerFile(host);
    let doc: Record<string, unknown> = { other, nsed: { command: '/opt/old/nsed', args: ['mcp'] } };
    for (const k of [...MCP_HOSTS[host].serversKey].reverse()) doc = { [k]: doc };
    const text = JSON.stringify(doc, null, 2);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, text);

    const refused = await install(s, host, '--project', '--dir', s.project);
    expect(refused.code).toBe(ExitCode.conflict);
    expect(refused.stderr).toBe(
      `nsed: ${file} already has a different nsed entry: {"command":"/opt/old/nsed","args":["mcp"]}\n` +
        `hint: nsed mcp install ${host} --force replaces it (the other servers stay as they are)\n`,
    );
    expect(await readFile(file, 'utf8')).toBe(text);

    const forced = await install(s, host, '--dir', s.project, '--force');
    expect(forced.code, forced.stderr).toBe(ExitCode.ok);
    expect(forced.stdout).toBe(`replaced the nsed entry in ${file}\n`);
    const servers = serversOf(host, await readFile(file, 'utf8'));
    expect(servers).toEqual({ other, nsed: MCP_HOSTS[host].entry([]) });
  });

  it.each(['cursor', 'vscode'] as const)(
    '%s: JSON with comments is refused with one line, nothing written',
    async (host) => {
      const s = await scratch();
      const file = projectFile(host, s);
      const text = '{\n  // the team server\n  "servers": {}\n}\n';
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, text);
      const r = await install(s, host, '--dir', s.project);
      expect(r.code).toBe(ExitCode.usage);
      const [line, hint, rest] = r.stderr.split('\n');
      expect(line).toMatch(
        new RegExp(
          `^nsed: cannot update ${file.replace(/[.\\]/g, '\\$&')}: it is not plain JSON \\(.*\\); comments are not rewritten; nothing written$`,
        ),
      );
      expect(hint).toBe(`hint: add the entry by hand: nsed mcp install ${host} --print shows it`);
      expect(rest).toBe('');
      expect(await readFile(file, 'utf8')).toBe(text);
    },
  );
});

describe('nsed mcp install opencode: the layout opencode reads', () => {
  it("a file in opencode's V1 layout (servers directly under mcp) is refused with one line, nothing written", async () => {
    const s = await scratch();
    const file = projectFile('opencode', s);
    const text = '{\n  "mcp": {\n    "other": { "type": "local", "command": ["other"] }\n  }\n}\n';
    await writeFile(file, text);
    const r = await install(s, 'opencode', '--dir', s.project);
    expect(r.code).toBe(ExitCode.usage);
    expect(r.stderr.split('\n')[0]).toBe(
      `nsed: cannot update ${file}: it keeps its servers directly under mcp (opencode's V1 layout); nsed writes V2's mcp.servers; nothing written`,
    );
    expect(await readFile(file, 'utf8')).toBe(text);
  });
});

describe('nsed mcp install codex: TOML edited in [mcp_servers.nsed] alone', () => {
  const OTHERS = [
    '# my codex settings\n',
    'model = "gpt-5"\n',
    'instructions = """\n[mcp_servers.nsed]\nnot a table: inside a string\n"""\n',
    '\n',
    '[mcp_servers.other]  # keep me\n',
    "command = 'other-mcp'\n",
    'args = ["--x"]\n',
    '\n',
    '[mcp_servers.other.env]\n',
    'A = "1"\n',
  ].join('');

  it('appends the table to a file with others; every other byte stays', async () => {
    const s = await scratch();
    const file = userFile('codex', s);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, OTHERS);
    const r = await install(s, 'codex');
    expect(r.code, r.stderr).toBe(ExitCode.ok);
    expect(r.stderr).toContain(`tool_timeout_sec (set to ${HOST_TIMEOUT_S} s`);
    const after = await readFile(file, 'utf8');
    expect(after).toBe(
      `${OTHERS}\n[mcp_servers.nsed]\ncommand = "nsed"\nargs = ["mcp"]\ntool_timeout_sec = ${HOST_TIMEOUT_S}\n`,
    );
    expect((await install(s, 'codex')).stdout).toContain('nothing changed');
    expect(await readFile(file, 'utf8')).toBe(after);
  });

  it('a different [mcp_servers.nsed] is refused (exit 7); --force replaces it and its sub-table, nothing else', async () => {
    const s = await scratch();
    const file = userFile('codex', s);
    const mine =
      '[mcp_servers.nsed]\ncommand = "/opt/nsed" # pinned\nargs = ["mcp"]\ntool_timeout_sec = 30\n\n' +
      '[mcp_servers.nsed.env]\nNSED_URL = "http://127.0.0.1:1"\n';
    const head = 'model = "gpt-5"\n\n';
    const tail = '\n# the next table\n[mcp_servers.other]\ncommand = "other"\n';
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, head + mine + tail);

    const refused = await install(s, 'codex');
    expect(refused.code).toBe(ExitCode.conflict);
    expect(refused.stderr.split('\n')[0]).toBe(
      `nsed: ${file} already has a different nsed entry: [mcp_servers.nsed]; command = "/opt/nsed" # pinned; ` +
        'args = ["mcp"]; tool_timeout_sec = 30; [mcp_servers.nsed.env]; NSED_URL = "http://127.0.0.1:1"',
    );
    expect(await readFile(file, 'utf8')).toBe(head + mine + tail);

    const forced = await install(s, 'codex', '--force');
    expect(forced.code, forced.stderr).toBe(ExitCode.ok);
    expect(await readFile(file, 'utf8')).toBe(
      `${head}[mcp_servers.nsed]\ncommand = "nsed"\nargs = ["mcp"]\ntool_timeout_sec = ${HOST_TIMEOUT_S}\n${tail}`,
    );
  });

  it('an equal table written by hand (other spacing, literal strings, a comment) counts as installed', async () => {
    const s = await scratch();
    const file = userFile('codex', s);
    const text = `[mcp_servers."nsed"]\n# by hand\ncommand='nsed'\nargs = [ "mcp" ]\ntool_timeout_sec = ${HOST_TIMEOUT_S}  # long calls\n`;
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, text);
    const r = await install(s, 'codex');
    expect(r.stdout).toContain('nothing changed');
    expect(await readFile(file, 'utf8')).toBe(text);
  });

  it('nsed as an inline table under [mcp_servers] is refused, not shadowed by a second definition', async () => {
    const s = await scratch();
    const file = userFile('codex', s);
    const text = '[mcp_servers]\nnsed = { command = "nsed", args = ["mcp"] }\n';
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, text);
    const r = await install(s, 'codex', '--force');
    expect(r.code).toBe(ExitCode.usage);
    expect(r.stderr.split('\n')[0]).toBe(
      `nsed: cannot update ${file}: it defines mcp_servers.nsed in a form nsed does not edit (nsed = { command = "nsed", args = ["mcp"] }); nothing written`,
    );
    expect(await readFile(file, 'utf8')).toBe(text);
  });
});

describe('nsed mcp install: a file as editors on Windows leave it', () => {
  it('a JSON file with a byte-order mark and CRLF lines keeps both', async () => {
    const s = await scratch();
    const file = projectFile('cursor', s);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, '\uFEFF{\r\n  "mcpServers": {\r\n    "other": { "command": "x" }\r\n  }\r\n}\r\n');
    const r = await install(s, 'cursor', '--dir', s.project);
    expect(r.code, r.stderr).toBe(ExitCode.ok);
    const after = await readFile(file, 'utf8');
    expect(after.startsWith('\uFEFF{\r\n')).toBe(true);
    expect(after.replaceAll('\r\n', '')).not.toContain('\n');
    expect(serversOf('cursor', after.slice(1))).toEqual({ other: { command: 'x' }, nsed: MCP_HOSTS.cursor.entry([]) });
  });

  it('a TOML file with CRLF lines gets its table in CRLF, every other byte kept', async () => {
    const s = await scratch();
    const file = userFile('codex', s);
    const text = 'model = "gpt-5"\r\n\r\n[mcp_servers.other]\r\ncommand = "other"\r\n';
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, text);
    expect((await install(s, 'codex')).code).toBe(ExitCode.ok);
    expect(await readFile(file, 'utf8')).toBe(
      `${text}\r\n[mcp_servers.nsed]\r\ncommand = "nsed"\r\nargs = ["mcp"]\r\ntool_timeout_sec = ${HOST_TIMEOUT_S}\r\n`,
    );
    expect((await install(s, 'codex')).stdout).toContain('nothing changed');
  });
});

describe('nsed mcp install: only the named regular file changes (reliability #82)', () => {
  it('a link to the file is followed and stays a link', async () => {
    const s = await scratch();
    const real = path.join(s.project, 'real-settings.json');
    await writeFile(real, '{"mcpServers": {}}');
    const file = projectFile('gemini', s);
    await mkdir(path.dirname(file), { recursive: true });
    await symlink(real, file);
    const r = await install(s, 'gemini', '--dir', s.project);
    expect(r.code, r.stderr).toBe(ExitCode.ok);
    expect(lstatSync(file).isSymbolicLink()).toBe(true);
    expect(serversOf('gemini', await readFile(real, 'utf8'))['nsed']).toEqual(MCP_HOSTS.gemini.entry([]));
  });

  it('a folder or a FIFO where the file should be is refused (exit 2), and stays what it was', async () => {
    const s = await scratch();
    const file = projectFile('cursor', s);
    await mkdir(file, { recursive: true });
    const dir = await install(s, 'cursor', '--dir', s.project);
    expect(dir.code).toBe(ExitCode.usage);
    expect(dir.stderr.split('\n')[0]).toBe(`nsed: ${file} is not a regular file; nsed writes Cursor only as one`);
    expect(lstatSync(file).isDirectory()).toBe(true);

    const fifo = projectFile('gemini', s);
    await mkdir(path.dirname(fifo), { recursive: true });
    execFileSync('mkfifo', [fifo]);
    const r = await install(s, 'gemini', '--dir', s.project);
    expect(r.code).toBe(ExitCode.usage);
    expect(lstatSync(fifo).isFIFO()).toBe(true);
  });

  it('--tools is written into the entry, checked first: an unknown tool is exit 2 naming it', async () => {
    const s = await scratch();
    const bad = await install(s, 'gemini', '--tools', 'deliberate,frobnicate');
    expect(bad.code).toBe(ExitCode.usage);
    expect(bad.stderr.split('\n')[0]).toBe("nsed: --tools names no tool 'frobnicate'");
    expect(await filesUnder(s.home)).toEqual([]);

    const ok = await install(s, 'gemini', '--tools', 'deliberate, wait,verdict');
    expect(ok.code, ok.stderr).toBe(ExitCode.ok);
    const entry = serversOf('gemini', await readFile(userFile('gemini', s), 'utf8'))['nsed'];
    expect(entry).toMatchObject({ args: ['mcp', '--tools', 'deliberate,wait,verdict'] });
  });

  it('an unknown host is exit 2 naming the hosts', async () => {
    const s = await scratch();
    const r = await install(s, 'emacs');
    expect(r.code).toBe(ExitCode.usage);
    expect(r.stderr.split('\n')[0]).toContain('emacs');
    expect(r.stderr.split('\n')[0]).toContain('claude-code');
  });
});
