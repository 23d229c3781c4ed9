import type { Usage } from '../council/usage.js';
import { Readable, Writable } from 'node:stream';
import { innerGlobals, savingAs, type Context } from '../run/context.js';
import { NsedError } from '../errors.js';
import type { Connection } from '../run/connection.js';
import { prepareTurnInput, type InputOptions, type TurnInput } from '../input/turn-input.js';
import { executeTurn } from '../turn/execute-turn.js';
import { followLeftTurn } from '../turn/follow-left.js';
import { assertFree, newClaim } from '../turn/idempotency/claim.js';
import { runKeyed } from '../turn/idempotency.js';
import { requestHash } from '../turn/idempotency/request-identity.js';
import { startSession } from '../turn/start-session.js';
import type { PendingJob, Session } from '../session/index.js';
import type { TurnOptions } from '../turn/turn-options.js';
import { resultOf, type TurnResult } from '../turn/turn-result.js';
import type { Gates } from '../council/verdict.js';
import type { IO } from '../terminal/io.js';
import type { ResolvedItem } from './resolve.js';
import type { ShardStamp } from './shard.js';
import type { ShardCapReport } from './shard-cap.js';
import { statusOf, type ItemStatus } from './status.js';

/** One line of a batch's results (docs/reliability.md "Batches"): written whole when the item ends. */
export interface ResultLine {
  id: string;
  index: number;
  batch: string;
  request_hash: string;
  session: string | null;
  job_id: string | null;
  status: ItemStatus;
  exit_code: number;
  answer: string;
  structured?: unknown;
  verdict: unknown;
  gate: unknown;
  /** What the item cost (docs/ndjson.md "Usage"), or null when its turn never started. */
  usage: Usage | null;
  error: { code: string; exit_code: number; message: string } | null;
  /** --shard I/N: where the line's shard stands in the matrix, and the cap it kept (batch merge joins by it). */
  shard?: ShardStamp & { cap: ShardCapReport | null };
}

/** What every item shares: the command line's turn flags, inputs and gates. */
export interface ItemBase {
  turn: TurnOptions;
  input: InputOptions;
  gates: Gates | undefined;
  batchId: string;
  /** The results file, absolute, recorded on each item's session for --resume. */
  out?: string | undefined;
  /** --idempotency-key: each item runs under `<key>/<item id>` (docs/ci.md "Re-runs that never pay twice"). */
  idempotency?: { key: string; force: boolean };
}

/** A deliberation an earlier run of the batch left for an item: its session, and the job to read when it has no marker. */
export interface LeftItem {
  session: Session;
  pending?: PendingJob;
}

/**
 * Runs one item as `ask` runs its turn, on the batch's shared connection, with its own quiet IO:
 * the turn's result (turn-result.ts), returned or carried by the error that ended it, is the
 * result line. Nothing of the item reaches the terminal.
 */
export async function runItem(ctx: Context, conn: Connection, item: ResolvedItem, base: ItemBase): Promise<ResultLine> {
  // Known once the item's input is read; an item whose input cannot be read has none ('').
  let hash = '';
  return asItem(
    ctx,
    item,
    () => hash,
    base,
    async (itemCtx) => {
      const prepared = await prepareItem(itemCtx, item, base);
      hash = await requestHash(itemCtx, prepared);
      const turn = { ...prepared.turn, gates: itemGates(item, base) };
      const batch = {
        id: base.batchId,
        item: item.id,
        request_hash: hash,
        ...(base.out === undefined ? {} : { out: base.out }),
      };
      const keyed = base.idempotency;
      if (keyed !== undefined) {
        const request = { prompt: prepared.prompt, attachments: prepared.attachments, turn, batch };
        return runKeyed(itemCtx, conn, { key: `${keyed.key}/${item.id}`, force: keyed.force }, request);
      }
      const { session, userTurnId } = await startSession(itemCtx, {
        prompt: prepared.prompt,
        attachments: prepared.attachments,
        opts: turn,
        orchestrator: conn.orchestrator,
        batch,
      });
      return executeTurn(itemCtx, conn, session, userTurnId, turn, { fresh: true });
    },
  );
}

/** The item's input read as `ask` reads its own: the command line's flags, with what the item gives. */
async function prepareItem(itemCtx: Context, item: ResolvedItem, base: ItemInputBase): Promise<TurnInput> {
  const turnOpts = itemTurnOptions(item, base.turn);
  const input: InputOptions = {
    ...base.input,
    files: [...base.input.files, ...item.files],
    schema: base.input.schema ?? item.schema,
    template: undefined,
    vars: [],
    varsFile: undefined,
  };
  return prepareTurnInput([item.prompt], input, turnOpts, itemCtx);
}

/** The command line's turn flags with what the item gives (its system, model, policy, agents, rounds). */
export function itemTurnOptions(item: ResolvedItem, turn: TurnOptions): TurnOptions {
  const turnOpts: TurnOptions = {
    ...turn,
    ...(item.system === undefined ? {} : { system: item.system }),
    ...(item.model === undefined ? {} : { model: item.model, policy: undefined, agents: undefined }),
    ...(item.policy === undefined ? {} : { policy: item.policy, model: undefined, agents: undefined }),
    ...(item.agents === undefined ? {} : { agents: item.agents, policy: undefined, model: undefined }),
    ...(item.rounds === undefined ? {} : { rounds: item.rounds }),
  };
  delete turnOpts.reports;
  return turnOpts;
}

/** What an item's request is made of beside the item: the command line's turn flags and inputs. */
export type ItemInputBase = Pick<ItemBase, 'turn' | 'input'>;

/**
 * The hash of the item's request (src/turn/idempotency/request-identity.ts), as its line records it:
 * undefined when its input cannot be read (the item then runs, and its line says why).
 */
export async function itemRequestHash(
  ctx: Context,
  item: ResolvedItem,
  base: ItemInputBase,
): Promise<string | undefined> {
  const itemCtx = quietContext(ctx);
  try {
    return await requestHash(itemCtx, await prepareItem(itemCtx, item, base));
  } catch {
    return undefined;
  }
}

/**
 * An item whose deliberation an earlier run of the batch left (killed mid-batch): followed to
 * its end as `nsed resume` follows it, or its recorded end read again, and never sent again
 * (docs/reliability.md #148).
 */
export async function reattachItem(
  ctx: Context,
  conn: Connection,
  item: ResolvedItem,
  hash: string,
  base: ItemBase,
  left: LeftItem,
): Promise<ResultLine> {
  return asItem(
    ctx,
    item,
    () => hash,
    base,
    (itemCtx) =>
      followLeftTurn(itemCtx, conn, left.session, {
        gates: itemGates(item, base),
        ...(left.pending === undefined ? {} : { pending: left.pending }),
        unsent: async (session, userTurnId) => sendUnsent(itemCtx, conn, session, userTurnId, item, base),
      }),
  );
}

/**
 * The item's turn was recorded but its start never reached the orchestrator (killed in between,
 * docs/reliability.md #201): it is sent now, as the recorded turn of the same session, claimed
 * again in one locked write (a turn its dead owner recorded as interrupted is dropped).
 */
async function sendUnsent(
  itemCtx: Context,
  conn: Connection,
  found: Session,
  userTurnId: string,
  item: ResolvedItem,
  base: ItemBase,
) {
  const prepared = await prepareItem(itemCtx, item, base);
  const turn = { ...prepared.turn, gates: itemGates(item, base) };
  const claim = newClaim(userTurnId, itemCtx.clock.now(), itemCtx.randomHex);
  const session = await (
    await itemCtx.store()
  ).update(found.id, (s) => {
    assertFree(s);
    const at = s.turns.findIndex((t) => t.id === userTurnId);
    s.turns = s.turns.slice(0, at + 1);
    s.claim = claim;
  });
  return executeTurn(itemCtx, conn, session, userTurnId, turn, { fresh: session.turns.length === 1 });
}

const itemGates = (item: ResolvedItem, base: ItemBase): Gates | undefined =>
  item.gates === undefined ? base.gates : { ...base.gates, ...item.gates };

/** Runs `turn` with the item's own quiet IO (nothing of it reaches the terminal) and makes its line from the turn's result. */
async function asItem(
  ctx: Context,
  item: ResolvedItem,
  hash: () => string,
  base: ItemBase,
  turn: (itemCtx: Context) => Promise<TurnResult>,
): Promise<ResultLine> {
  const quiet = quietContext(ctx);
  const itemCtx = await savingAs(quiet, base.turn.save);
  let result: TurnResult | undefined;
  let thrown: NsedError | undefined;
  try {
    result = await turn(itemCtx);
  } catch (err) {
    result = resultOf(err);
    thrown =
      err instanceof NsedError ? err : new NsedError('bug', `item failed: ${String((err as Error).message ?? err)}`);
  }
  const line = resultLine(item, hash(), base.batchId, result, thrown);
  // With --no-save the item's session lived in memory only: an id no store holds would send a
  // reader to `sessions show` for nothing (docs/reliability.md "Batches").
  return itemCtx.saving ? line : { ...line, session: null };
}

/** An item's own quiet IO: nothing of it reaches the terminal, and no terminal stdin is read. */
function quietContext(ctx: Context): Context {
  const io: IO = {
    stdout: discard(),
    stderr: discard(),
    // A terminal stdin is never read as piped context: every item's prompt is its own.
    stdin: Readable.from([]),
    stdoutIsTTY: false,
    stderrIsTTY: false,
    stdinIsTTY: true,
    color: false,
    quiet: true,
    verbose: false,
    dumb: true,
    secrets: ctx.secrets,
  };
  // The line is made from the turn's result, so the turn renders nothing; `final` is the mode its
  // other writes (none reach a terminal) are made in.
  return { ...ctx, io, globals: innerGlobals(ctx.globals, 'final', true), renderer: 'none' };
}

/** A result line from the turn's result (undefined when the turn never started) and the error that ended the run. */
function resultLine(
  item: ResolvedItem,
  hash: string,
  batch: string,
  result: TurnResult | undefined,
  thrown: NsedError | undefined,
): ResultLine {
  const error =
    result?.error ??
    (thrown === undefined ? null : { code: thrown.code, exit_code: thrown.exitCode, message: thrown.message });
  // A start the orchestrator turned away (429/503, or the batch's back-off cap) started no
  // deliberation that could have failed: nsed could not run the item.
  const refused = thrown !== undefined && thrown.code === 'server' && (thrown.nothingStarted || thrown.unsent);
  const status = refused ? 'error' : statusOf(result?.status, error?.code);
  const line: ResultLine = {
    id: item.id,
    index: item.index,
    batch,
    request_hash: hash,
    session: result?.session ?? null,
    job_id: result?.job ?? null,
    status,
    exit_code: error?.exit_code ?? result?.exitCode ?? thrown?.exitCode ?? 0,
    answer: result?.answer ?? '',
    verdict: result?.verdict ?? null,
    gate: result?.gate ?? null,
    usage: result?.usage ?? null,
    error,
  };
  if (result !== undefined && 'structured' in result) line.structured = result.structured;
  return line;
}

/** The item's stdout and stderr: nothing of an item reaches the terminal. */
const discard = (): Writable => new Writable({ write: (_chunk, _encoding, done) => done() });
