// Loads a whole batch into nftables with one `nft -f -` (start-up's table replacement): the
// kernel applies all of it or none. Incremental batches go through NftSession instead.
import { run } from '../exec/command';

export async function applyBatch(batch: string): Promise<void> {
  if (batch === '') return;
  // A whole table at 30,000 elements takes about a second: more than one small change's bound.
  await run('nft', ['-f', '-'], { input: batch, timeoutMs: 60_000 });
}
