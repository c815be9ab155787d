// Runs the steps of one kernel change in order; when one fails, the steps already done are
// undone in reverse, so the kernel is left as it was and the caller's transaction rolls back.
import { apiError } from '../error-registry';
import type { Logger } from '../log';

export interface Step {
  what: string;
  run(): Promise<void>;
  /** Restores what run() changed; absent for a last step that has nothing after it to fail. */
  undo?(): Promise<void>;
}

/** The step of an nft batch, its reverse the undo; none for an empty batch. */
export function batchSteps(apply: (batch: string) => Promise<void>, batch: string, reverse: string, what: string): Step[] {
  return batch ? [{ what, run: () => apply(batch), undo: () => apply(reverse) }] : [];
}

export async function runSteps(steps: Step[], log: Logger): Promise<void> {
  const done: Step[] = [];
  for (const step of steps) {
    try {
      await step.run();
      done.push(step);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      for (const d of done.reverse()) {
        try {
          await d.undo?.();
        } catch (undoErr) {
          log.error('kernel undo failed: the kernel may differ from the database until restart', {
            step: d.what, error: undoErr instanceof Error ? undoErr.message : String(undoErr),
          });
        }
      }
      log.warn('kernel apply failed; undone', { step: step.what, error: message });
      throw apiError('WGCP_KERNEL_FAILED', { reason: message });
    }
  }
}

/**
 * Steps that touch independent parts of the kernel (the table, a peer on its interface), run
 * at once: the change costs the slower of them, not their sum. If any fails, those that
 * worked are undone and the first failure is thrown, as runSteps does.
 */
export async function runTogether(steps: Step[], log: Logger): Promise<void> {
  const results = await Promise.allSettled(steps.map((s) => s.run()));
  const failed = results.findIndex((r) => r.status === 'rejected');
  if (failed < 0) return;
  for (const [i, r] of results.entries()) {
    if (r.status !== 'fulfilled') continue;
    try {
      await steps[i].undo?.();
    } catch (undoErr) {
      log.error('kernel undo failed: the kernel may differ from the database until restart', {
        step: steps[i].what, error: undoErr instanceof Error ? undoErr.message : String(undoErr),
      });
    }
  }
  const reason = (results[failed] as PromiseRejectedResult).reason as unknown;
  const message = reason instanceof Error ? reason.message : String(reason);
  log.warn('kernel apply failed; undone', { step: steps[failed].what, error: message });
  throw apiError('WGCP_KERNEL_FAILED', { reason: message });
}
