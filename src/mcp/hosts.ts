// What `nsed mcp install HOST` knows of each coding agent, as data: where it reads its MCP
// servers (user and project scope), in what format, under which key, the entry it expects for
// nsed, and the setting that ends a long tool call. Gathered from the hosts' own docs in late
// 2026 (/work/shared/mcp-hosts.md and README "Coding agents"); a host that moves its file is a
// change here and nowhere else.

import path from 'node:path';
import { WAIT_MAX_S } from './tool-defs.js';

export const HOST_NAMES = ['claude-code', 'codex', 'cursor', 'vscode', 'gemini', 'opencode'] as const;
export type HostName = (typeof HOST_NAMES)[number];

/**
 * The tool-call timeout written where a host has one: above the longest a `wait` or a waiting
 * `deliberate` holds a call (WAIT_MAX_S), with room for the server's start and a slow disk.
 */
export const HOST_TIMEOUT_S = 120;

/** Where the files are looked for: the environment, the platform, and the project folder. */
export interface HostPlaces {
  env: Readonly<Record<string, string | undefined>>;
  platform: NodeJS.Platform;
  /** The folder `--project` writes into (the working directory unless `--dir` names one). */
  projectDir: string;
}

export interface McpHost {
  name: HostName;
  /** The host as people call it. */
  label: string;
  format: 'json' | 'toml';
  /** The user-scope file; undefined when the home it lives in cannot be found (no HOME). */
  userFile(p: HostPlaces): string | undefined;
  /** The project-scope file. */
  projectFile(p: HostPlaces): string;
  /** The keys, from the file's top, of the object holding one entry per server. */
  serversKey: readonly string[];
  /** nsed's entry: the command that starts `nsed mcp`, with `args` after `mcp`, and the timeout. */
  entry(args: readonly string[]): Record<string, unknown>;
  /** How the host ends a long call, said once after an install. */
  timeoutNote: string;
  /**
   * Why a parsed file is not one nsed's entry can be merged into as this host reads it (an older
   * layout of the host's own), or undefined.
   */
  foreignLayout?(doc: Record<string, unknown>): string | undefined;
}

const HOME_OF = (p: HostPlaces): string | undefined => {
  const home = p.env['HOME'] || (p.platform === 'win32' ? p.env['USERPROFILE'] : undefined);
  return home ? path.resolve(home) : undefined;
};

/** `$XDG_CONFIG_HOME` when absolute (the spec ignores a relative one), else `~/.config`. */
const XDG_CONFIG = (p: HostPlaces): string | undefined => {
  const xdg = p.env['XDG_CONFIG_HOME'];
  if (xdg !== undefined && path.isAbsolute(xdg)) return xdg;
  const home = HOME_OF(p);
  return home === undefined ? undefined : path.join(home, '.config');
};

const inHome =
  (...parts: string[]) =>
  (p: HostPlaces): string | undefined => {
    const home = HOME_OF(p);
    return home === undefined ? undefined : path.join(home, ...parts);
  };

const inProject =
  (...parts: string[]) =>
  (p: HostPlaces): string =>
    path.join(p.projectDir, ...parts);

const MCP_ARGS = (args: readonly string[]): string[] => ['mcp', ...args];

export const MCP_HOSTS: Readonly<Record<HostName, McpHost>> = {
  'claude-code': {
    name: 'claude-code',
    label: 'Claude Code',
    format: 'json',
    // `claude mcp add --scope user` writes here; CLAUDE_CONFIG_DIR moves the whole folder.
    userFile: (p) => {
      const dir = p.env['CLAUDE_CONFIG_DIR'];
      return dir !== undefined && path.isAbsolute(dir) ? path.join(dir, '.claude.json') : inHome('.claude.json')(p);
    },
    projectFile: inProject('.mcp.json'),
    serversKey: ['mcpServers'],
    entry: (args) => ({ command: 'nsed', args: MCP_ARGS(args) }),
    timeoutNote:
      'Claude Code has no per-server timeout; its tool timeout (MCP_TOOL_TIMEOUT, ms) is far above a wait unless set lower, and progress keeps a call alive',
  },
  codex: {
    name: 'codex',
    label: 'Codex',
    format: 'toml',
    userFile: (p) => {
      const dir = p.env['CODEX_HOME'];
      return dir !== undefined && path.isAbsolute(dir)
        ? path.join(dir, 'config.toml')
        : inHome('.codex', 'config.toml')(p);
    },
    // Read only in a project Codex trusts.
    projectFile: inProject('.codex', 'config.toml'),
    serversKey: ['mcp_servers'],
    entry: (args) => ({ command: 'nsed', args: MCP_ARGS(args), tool_timeout_sec: HOST_TIMEOUT_S }),
    timeoutNote: `Codex ends a tool call after tool_timeout_sec (set to ${HOST_TIMEOUT_S} s; about 60 s by default)`,
  },
  cursor: {
    name: 'cursor',
    label: 'Cursor',
    format: 'json',
    userFile: inHome('.cursor', 'mcp.json'),
    projectFile: inProject('.cursor', 'mcp.json'),
    serversKey: ['mcpServers'],
    entry: (args) => ({ command: 'nsed', args: MCP_ARGS(args) }),
    timeoutNote: `Cursor documents no per-server timeout; each wait returns within ${WAIT_MAX_S} s`,
  },
  vscode: {
    name: 'vscode',
    label: 'VS Code',
    format: 'json',
    userFile: (p) => {
      if (p.platform === 'darwin') return inHome('Library', 'Application Support', 'Code', 'User', 'mcp.json')(p);
      if (p.platform === 'win32') {
        const appData = p.env['APPDATA'];
        return appData ? path.join(appData, 'Code', 'User', 'mcp.json') : undefined;
      }
      const config = XDG_CONFIG(p);
      return config === undefined ? undefined : path.join(config, 'Code', 'User', 'mcp.json');
    },
    projectFile: inProject('.vscode', 'mcp.json'),
    serversKey: ['servers'],
    entry: (args) => ({ type: 'stdio', command: 'nsed', args: MCP_ARGS(args) }),
    timeoutNote: `VS Code documents no per-server timeout; each wait returns within ${WAIT_MAX_S} s`,
  },
  gemini: {
    name: 'gemini',
    label: 'Gemini CLI',
    format: 'json',
    userFile: inHome('.gemini', 'settings.json'),
    projectFile: inProject('.gemini', 'settings.json'),
    serversKey: ['mcpServers'],
    entry: (args) => ({ command: 'nsed', args: MCP_ARGS(args), timeout: HOST_TIMEOUT_S * 1000 }),
    timeoutNote: `Gemini CLI ends a tool call after the server's timeout (set to ${HOST_TIMEOUT_S * 1000} ms)`,
  },
  opencode: {
    name: 'opencode',
    label: 'opencode',
    format: 'json',
    userFile: (p) => {
      const config = XDG_CONFIG(p);
      return config === undefined ? undefined : path.join(config, 'opencode', 'opencode.json');
    },
    projectFile: inProject('opencode.json'),
    // opencode's V2 configuration: servers under mcp.servers, a request timeout in ms.
    serversKey: ['mcp', 'servers'],
    entry: (args) => ({
      type: 'local',
      command: ['nsed', ...MCP_ARGS(args)],
      timeout: { request: HOST_TIMEOUT_S * 1000 },
    }),
    timeoutNote: `opencode ends a tool call after timeout.request (set to ${HOST_TIMEOUT_S * 1000} ms)`,
    // V1 kept each server directly under `mcp`; a `servers` entry added there would read as a
    // server of that name, so such a file is refused rather than half converted.
    foreignLayout: (doc) => {
      const mcp = doc['mcp'];
      if (typeof mcp !== 'object' || mcp === null || Array.isArray(mcp) || 'servers' in mcp) return undefined;
      const v1 = Object.values(mcp).some((v) => typeof v === 'object' && v !== null && 'type' in v);
      return v1
        ? "it keeps its servers directly under mcp (opencode's V1 layout); nsed writes V2's mcp.servers"
        : undefined;
    },
  },
};
