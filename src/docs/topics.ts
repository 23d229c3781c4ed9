import { runnableDefs, type CommandEntry } from '../commands/command.js';
import { GLOBAL_FLAGS } from '../commands/global-options.js';
import { TURN_FLAGS } from '../commands/shared/turn-flags.js';
import { ExitCode } from '../errors.js';
import { EXPORT_FORMATS, type ExportFormat } from '../output/export/format-names.js';
import { OUTPUT_MODES, type OutputMode } from '../output/modes.js';

export interface Described {
  name: string;
  describe: string;
}

/**
 * Every environment variable nsed reads (a test greps src/ for any it forgot): first those that
 * stand in for a flag, written from the flag tables of `commands`, then the others.
 */
export function environment(commands: readonly CommandEntry[]): Described[] {
  const defs = commands.flatMap(runnableDefs);
  const seen = new Set<string>();
  const fromFlags: Described[] = [];
  for (const f of [...GLOBAL_FLAGS, ...defs.flatMap((d) => d.flags ?? [])]) {
    if (f.env === undefined || seen.has(f.env)) continue;
    seen.add(f.env);
    // A flag of one command is named with it (nsed sim --token); a shared or global one alone.
    const owners = defs.filter((d) => d.flags?.includes(f));
    const who =
      owners.length === 1 && !GLOBAL_FLAGS.includes(f) ? `nsed ${owners[0]?.command.split(' ')[0] ?? ''} ` : '';
    const spelled =
      f.alias === undefined
        ? `--${f.name}`
        : f.alias.length === 1
          ? `-${f.alias}/--${f.name}`
          : `--${f.name}/--${f.alias}`;
    const fallback = f.defaultDescription ?? (f.default === undefined ? undefined : String(f.default));
    fromFlags.push({
      name: f.env,
      describe: `${f.describe}, when ${who}${spelled} is not given${fallback === undefined ? '' : ` (default: ${fallback})`}`,
    });
  }
  return [...fromFlags, ...OTHER_ENVIRONMENT];
}

/** The environment variables that stand in for no flag. */
const OTHER_ENVIRONMENT: Described[] = [
  {
    name: 'NSED_TOKEN',
    describe:
      'the bearer token; --token-file FILE reads it from a file instead. There is no flag that takes the token itself',
  },
  {
    name: 'XDG_DATA_HOME',
    describe: 'when NSED_HOME is not set, the store is XDG_DATA_HOME/nsed (an absolute path only)',
  },
  { name: 'HOME', describe: 'otherwise the store is ~/.local/share/nsed (USERPROFILE on Windows)' },
  {
    name: 'NSED_CONFIG',
    describe: 'the config file (default: XDG_CONFIG_HOME/nsed/config.json, else ~/.config/nsed/config.json)',
  },
  {
    name: 'XDG_CONFIG_HOME',
    describe:
      'when NSED_CONFIG is not set, the config file is XDG_CONFIG_HOME/nsed/config.json (an absolute path only)',
  },
  {
    name: 'CI',
    describe:
      'set (not empty, not false) as CI runners do: with --progress auto, progress off a terminal is plain lines',
  },
  {
    name: 'GITHUB_ACTIONS',
    describe:
      'true (as GitHub Actions sets it) with GITHUB_OUTPUT set: ask, continue, resume, batch and gate append step outputs to GITHUB_OUTPUT',
  },
  {
    name: 'GITHUB_OUTPUT',
    describe:
      'the step outputs file under GitHub Actions (session-id, status, exit-code, convergence, gate, …); --github-output FILE names another',
  },
  {
    name: 'GITHUB_STEP_SUMMARY',
    describe:
      "the step summary file under GitHub Actions: --annotate's notice names it as the step's summary, not by the runner's temporary path",
  },
  {
    name: 'GITHUB_TOKEN',
    describe:
      'the token --check-run writes the check run with (checks: write); a secret like NSED_TOKEN, in no output or file',
  },
  { name: 'GH_TOKEN', describe: "--check-run's token when GITHUB_TOKEN is not set" },
  { name: 'GITHUB_REPOSITORY', describe: 'OWNER/REPO: where --check-run writes the check run' },
  {
    name: 'GITHUB_EVENT_PATH',
    describe: "the workflow's event: --check-run writes on a pull request's head commit, not its merge commit",
  },
  { name: 'GITHUB_SHA', describe: "the commit --check-run writes on when the event names no pull request's head" },
  { name: 'GITHUB_API_URL', describe: "GitHub's REST API for --check-run (default: https://api.github.com)" },
  { name: 'NO_COLOR', describe: 'any non-empty value turns colour off' },
  {
    name: 'FORCE_COLOR',
    describe: '1, 2, 3 or true turns colour on, 0 or false off; wins over NO_COLOR; --no-color wins over both',
  },
  { name: 'TERM', describe: 'dumb turns colour off, and progress on stderr becomes plain lines' },
  {
    name: 'NSED_PAGER',
    describe: 'pager for sessions show on a terminal (then PAGER, then less -FRX); empty or cat turns paging off',
  },
  { name: 'PAGER', describe: 'the pager when NSED_PAGER is not set' },
  {
    name: 'LESS',
    describe: 'options of less when it pages (default FRX: quit if one screen, keep colours, leave the text on screen)',
  },
  { name: 'LV', describe: 'options of lv when it pages (default -c, keep colours)' },
  { name: 'NSED_DEBUG', describe: '1 prints request lines and stack traces on stderr (never the token)' },
  {
    name: 'NSED_MCP_TOKEN',
    describe:
      'the token every request to nsed mcp --http must present as Authorization: Bearer (16 or more visible ASCII characters, no spaces)',
  },
  { name: 'HTTPS_PROXY', describe: 'proxy for https:// orchestrators (https_proxy wins, as in curl)' },
  {
    name: 'HTTP_PROXY',
    describe: 'proxy for http:// orchestrators (http_proxy wins); loopback addresses always go direct',
  },
  { name: 'NO_PROXY', describe: 'comma-separated hosts that go direct (no_proxy wins)' },
  {
    name: 'NODE_EXTRA_CA_CERTS',
    describe: 'a PEM file of extra certificate authorities, for an orchestrator behind a private CA (read by Node.js)',
  },
  {
    name: 'NODE_TLS_REJECT_UNAUTHORIZED',
    describe: '0 turns off certificate checks (Node.js); nsed warns when it is set for an https:// orchestrator',
  },
  { name: 'NSED_SIM_ROUND_MS', describe: '--sim: milliseconds per phase of the in-process simulator (default 120)' },
  {
    name: 'NSED_TEST_KILL_AT_WRITE',
    describe:
      "a test hook, never a setting: N makes the process kill itself (SIGKILL) before its Nth file write (nsed's crash tests)",
  },
  { name: 'SHELL', describe: 'nsed completion without an argument picks the shell named here' },
  { name: 'USERPROFILE', describe: 'Windows: the user home, where HOME is not set' },
  {
    name: 'CODEX_HOME',
    describe: "nsed mcp install codex: Codex's folder (default ~/.codex), where config.toml is written",
  },
  {
    name: 'CLAUDE_CONFIG_DIR',
    describe: "nsed mcp install claude-code: Claude Code's folder, where .claude.json is written (default: HOME)",
  },
  { name: 'APPDATA', describe: "Windows: where nsed mcp install vscode finds VS Code's user mcp.json (Code/User)" },
];

export const FILES: Described[] = [
  {
    name: '$NSED_HOME/sessions/ID.json',
    describe:
      'one session: its transcript and bookkeeping, mode 0600 in a 0700 directory; written atomically under a per-session lock',
  },
  {
    name: '$NSED_HOME/index.ndjson',
    describe:
      'the listing index behind sessions ls; a cache, rebuilt from the session files when it disagrees with them',
  },
  {
    name: '~/.config/nsed/config.json',
    describe: `defaults: ${[...GLOBAL_FLAGS, ...TURN_FLAGS].flatMap((f) => (f.configKey === undefined ? [] : [f.configKey])).join(', ')} (nsed config); flags and the environment win over it; never the token`,
  },
  {
    name: '$NSED_HOME/policies-cache.json',
    describe: 'the policy tags of the last nsed policies, offered by shell completion of -p for 24 hours',
  },
  { name: '~/.local/share/nsed', describe: 'the default store root (see NSED_HOME and XDG_DATA_HOME)' },
];

/** Each exit code's word in `nsed --help` and its meaning in the man page and the manual (docs/reference.md). */
const MEANINGS: Record<keyof typeof ExitCode, { short: string; meaning: string }> = {
  ok: { short: 'ok', meaning: 'success' },
  bug: { short: 'bug', meaning: 'unexpected failure (a bug in nsed: the message says so)' },
  usage: {
    short: 'usage',
    meaning:
      "usage: bad flags or arguments, an invalid id, an --out or config path that is a folder; a report path (--summary, --junit, --html) whose folder is missing or whose links loop, or a --out whose links loop (all before anything is sent); a file a flag names that is a device, a folder or past its cap; a batch item's file outside the batch file's folder; a spend cap (--max-cost, --max-tokens) on a server that cannot meter it, without --allow-unmetered",
  },
  notFound: {
    short: 'not found',
    meaning:
      'not found: session, turn, job or policy; a file a flag names (-f, --schema, --template, --vars, --gates, --tools, --token-file, a batch file, ...) or a glob that matches nothing',
  },
  auth: { short: 'auth', meaning: 'authentication: the orchestrator answered 401 or 403' },
  server: { short: 'server', meaning: 'server: 5xx, a failed deliberation, a malformed stream' },
  network: {
    short: 'network',
    meaning:
      'network: connection refused, reset, DNS, TLS; or a stream cut off while the deliberation may still run (nsed resume)',
  },
  conflict: {
    short: 'conflict',
    meaning:
      'conflict: a deliberation is already running on the session, or nothing is running (resume, watch, inject, cancel)',
  },
  store: { short: 'store', meaning: 'store: a session file cannot be read, parsed or locked' },
  cancelled: {
    short: 'cancelled',
    meaning: 'cancelled: the deliberation was cancelled (nsed cancel, or on the orchestrator)',
  },
  toolPending: {
    short: 'tool pending',
    meaning: 'a tool call awaits its result (nsed continue --tool-result, nsed tool-result)',
  },
  io: {
    short: 'io',
    meaning:
      'io: writing stdout or an output file failed (a full disk, a closed or broken file); the message names the error',
  },
  gateFailed: {
    short: 'gate failed',
    meaning:
      "gate failed: the deliberation completed but the council's verdict failed a gate (--min-convergence, --max-wrong, ...)",
  },
  inconclusive: {
    short: 'inconclusive',
    meaning: 'inconclusive: a gate could not be judged because the server did not report the value it checks',
  },
  schemaMismatch: {
    short: 'schema mismatch',
    meaning:
      'schema mismatch: the answer does not match --schema, after the council had its --schema-retries to fix it',
  },
  costCap: {
    short: 'cost cap',
    meaning:
      "cost cap: the deliberation's next round would pass --max-cost or --max-tokens (or its spend reached it) and it was cancelled on the orchestrator; the turn is recorded with the verdict it had reached. Also a deliberation whose first round's estimate alone passes --max-cost (nothing sent)",
  },
  incomplete: {
    short: 'incomplete',
    meaning:
      'incomplete: batch merge found a shard of the matrix, or an item of the batch, with no result line (the message names them); the merged files are written with what there is',
  },
  timeout: { short: 'timeout', meaning: 'timeout: --timeout or --idle-timeout' },
  sighup: { short: 'hung up (SIGHUP)', meaning: 'hung up (SIGHUP)' },
  interrupted: { short: 'interrupted (SIGINT)', meaning: 'interrupted (SIGINT, Ctrl-C)' },
  terminated: { short: 'terminated (SIGTERM)', meaning: 'terminated (SIGTERM)' },
};

/** The exit-code table, from errors.ts: a code added there must be described here. */
export const EXIT_CODES: Array<{ code: number; short: string; meaning: string }> = (
  Object.keys(ExitCode) as Array<keyof typeof ExitCode>
)
  .map((k) => ({ code: ExitCode[k], ...MEANINGS[k] }))
  .sort((a, b) => a.code - b.code);

/** The help epilog: every exit code, from the same table. */
export function exitCodeEpilog(): string {
  return `Exit codes: ${EXIT_CODES.map((e) => `${e.code} ${e.short}`).join(', ')}.`;
}

const OUTPUT_MODE_MEANINGS: Record<OutputMode, string> = {
  text: 'the answer on stdout as it arrives; rounds, injections, tool calls and results, reconnects and the session id on stderr, one dim line each (every mode shows progress on stderr when it is a terminal, then the session id and how to continue it)',
  ndjson:
    'one JSON object per event on stdout, flushed per event; every object has v (schema version, 1), seq (1, 2, 3 ... within the run) and type; exactly one terminal event ends every run: finish or error, or injected for inject --no-wait, cancelled for cancel',
  final: 'only the final answer, once the turn ends',
  json: 'one JSON object when the turn ends: session, turn, job_id, policy, content, reasoning, rounds, injections, tool_calls, tool_results, finish_reason (inject --no-wait and cancel: their injected or cancelled event)',
};

/** Every output mode with its meaning (a mode added to output/modes.ts must be described here). */
export const OUTPUT_MODES_DOC: Described[] = OUTPUT_MODES.map((name) => ({
  name,
  describe: OUTPUT_MODE_MEANINGS[name],
}));

const EXPORT_FORMAT_MEANINGS: Record<ExportFormat, string> = {
  json: 'the session as one document (what sessions show --json prints): v, id, title, policy, orchestrator, conversation_id, created, updated, state, system, forked_from, council ({agents, rounds} chosen with --agents/--rounds), pending_job, and turns of {id, role, kind, status, content, ts, policy, job_id, path, finish_reason, error, reasoning, injection, rounds, tool_calls, verdict, gate}; absent values are null or []',
  markdown: 'a readable transcript with a heading per turn',
  messages:
    'an OpenAI messages array (system first, user turns and injections as user, complete answers as assistant, each preceded by its tool calls and tool results), ready to replay through any OpenAI-compatible client',
  ndjson:
    "each assistant turn as the events of the live -o ndjson schema, seq starting at 1 per turn: turn-start, job, reasoning, the scored rounds with the turn's injections, each tool-call with its tool-result, the answer as one text event, then finish (or error for a turn that did not complete)",
  thread:
    "the reference client's thread file (docs/protocol.md section 9.2): save it as $NSED_THREAD_DIR/ID.json to open the session in the reference TUI",
  summary:
    'the last answer as a CI step summary (GitHub-flavoured markdown, under 1 MiB): the same bytes as --summary FILE on the run',
  junit:
    'the last answer as a JUnit XML report, one test case per gate check: the same bytes as --junit FILE on the run',
  html: 'one self-contained page of the session (verdict, charts, every round), for a browser or a CI artifact',
  jsonl:
    "one line per turn, for bulk readers: the json export's turn (rounds and verdict included) with v, session (the session's id) and position (1-based); docs/history.md",
};

/** Every export format with its meaning (a format added to output/export/format-names.ts must be described here). */
export const EXPORT_FORMATS_DOC: Described[] = EXPORT_FORMATS.map((name) => ({
  name,
  describe: EXPORT_FORMAT_MEANINGS[name],
}));

export const SIM_FAULTS =
  '[chat|submit|resume|all:]drop-after=N|status=503|status=429;retry-after=1|stall-ms=5000;stall-after=N|malformed-at=N|eof-without-done|result-text=TEXT|fail-at-round=N|end=bare-done|end=close|call-tool=NAME|times=N';

/** Whole-tool examples for the man page; every line is also in an `sh` example of the manual (README.md or docs/), where a test runs it. */
export const EXAMPLES: Array<{ command: string; describe: string }> = [
  {
    command: 'nsed ask --sim "Design a cache for a read-heavy API"',
    describe: 'A deliberation on the built-in simulator, no orchestrator needed',
  },
  {
    command: 'nsed ask -p deep -o final "Design a cache for a read-heavy API" > answer.md',
    describe: 'A one-shot question in a script: only the answer lands in the file',
  },
  { command: 'nsed continue --last "And for writes?"', describe: 'The next turn of the most recently active session' },
  {
    command: 'cat notes.txt | nsed ask -p fast -o final "What should we check first?"',
    describe: 'The words are the question, the piped input its context',
  },
  {
    command: 'nsed inject --last "Keep the old API running for a year"',
    describe: 'From a second terminal, steer the deliberation running in the first',
  },
  {
    command: 'nsed ask -p fast --tools tools.json -o final "Use the calculator to compute 2+2"',
    describe: 'Give the council a tool it may run (declared with a command in tools.json)',
  },
  {
    command:
      'nsed ask -o ndjson -p deep "Review the rollout plan" > events.ndjson\njq -r \'select(.type == "finish") | .content\' events.ndjson > review.md',
    describe: 'Machine-readable events in CI',
  },
  {
    command: 'id=$(nsed sessions ls --ids -n 1)\nnsed sessions export "$id" --format markdown --out transcript.md',
    describe: 'Export the latest session as a readable transcript',
  },
  {
    command: "nsed sessions ls --json | jq -r '.[] | select(.turns > 2) | .title'",
    describe: 'Titles of the sessions with more than two turns',
  },
];
