// Loads a whole batch into nftables with one `nft -f -` (start-up's table replacement): the
// kernel applies all of it or none. Incremental batches go through NftSession instead.
import { run } from '../kernel/command';

export function applyBatch(batch: string): void {
  if (batch === '') return;
  run('nft', ['-f', '-'], { input: batch });
}
