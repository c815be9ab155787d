// The hot path of a peer or forward change: one nft batch, then the peer's `wg set` calls.
// nft goes first so that its refusal (the likelier failure) leaves the interface and its
// live sessions untouched; when a wg call fails, what was done is undone, so the kernel is
// left as it was and the caller's transaction rolls back.
import createError from 'http-errors';
import type { Logger } from '../log';
import type { PeerOp } from '../wg/uapi-conf';
import { applyBatch } from '../nft/apply';
import { run, SECRET_FILE, withSecretFiles } from './command';
import { runLanes, type ToolCall } from './lanes';

const TIMEOUT_MS = 30_000;

function runPeerOpsNow(ops: PeerOp[]): void {
  for (const op of ops) run('wg', op.args, { secret: op.secret });
}

export interface FastChange {
  what: string;
  batch: string;
  reverseBatch: string;
  ops: PeerOp[];
  /** Brings the interface back to the peer as it was (run when the wg side may have changed it). */
  undoOps: PeerOp[];
}

export function applyFast(change: FastChange, log: Logger): void {
  const { batch, ops } = change;
  if (!batch && ops.length === 0) return;
  const secrets = ops.map((op) => op.secret ?? null);
  const { done, failure } = withSecretFiles(secrets, (files) => {
    const lane: ToolCall[] = batch ? [{ tool: 'nft', args: ['-e', '-f', '-'], input: batch, doneOnOutput: true, timeoutMs: TIMEOUT_MS }] : [];
    for (const [i, op] of ops.entries()) lane.push({ tool: 'wg', args: op.args.map((a) => (a === SECRET_FILE ? files[i]! : a)), timeoutMs: TIMEOUT_MS });
    return runLanes([lane])[0];
  });
  if (!failure) return;
  const nftDone = batch !== '' && done >= 1;
  const wgDone = done - (batch ? 1 : 0) > 0;
  const undo = (what: string, fn: () => void) => {
    try {
      fn();
    } catch (err) {
      log.error('kernel undo failed: the kernel may differ from the database until restart', { step: what, error: err instanceof Error ? err.message : String(err) });
    }
  };
  if (wgDone) undo(`${change.what} interface`, () => runPeerOpsNow(change.undoOps));
  if (nftDone) undo(`${change.what} filter`, () => applyBatch(change.reverseBatch));
  log.warn('kernel apply failed; undone', { step: change.what, error: failure.message });
  throw createError(500, failure.message);
}
