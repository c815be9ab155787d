// Loads a batch into nftables with `nft -f -`: the kernel applies the whole batch or none of it.
import { run } from '../kernel/command';

export function applyBatch(batch: string): void {
  if (batch === '') return;
  run('nft', ['-f', '-'], { input: batch });
}

/** The table as nft prints it, or null when it does not exist. */
export function listTable(): string | null {
  try {
    return run('nft', ['list', 'table', 'inet', 'wgcp']);
  } catch {
    return null;
  }
}
