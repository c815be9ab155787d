// The change runner's journal hook for a standby pair (runner.ts ChangeJournal): a standby
// refuses every change but its own following; each committed change takes the next
// sequence of ha_state inside its transaction; while a partner is configured the daemon's
// TEMP triggers (store/ha.ts) write the change's rows to ha_journal under that sequence,
// and the primary answers the change once the standby holds it (Pair.held, bounded).
import { apiError } from '../error-registry';
import type { Store } from '../store/store';
import type { ChangeJournal, ChangeOptions } from './runner';

/** What the hook needs of the pair (src/ha/pair.ts's Pair; named here so that ops/ never imports ha/). */
export interface PairHold {
  readonly role: 'primary' | 'standby' | 'alone';
  readonly partnerUrl: string | null;
  committed(): void;
  held(seq: number): Promise<void>;
}

/** The journal is pruned to its bounded tail once every this many changes (or every `keep`, when fewer). */
const PRUNE_EVERY = 100;

export function pairJournal(store: Store, pair: PairHold, opts: { journaling: boolean; keep: number }): ChangeJournal {
  let recording = false;
  let wrote = false;
  let pending = 0;
  let epoch = 0;
  let replicated = false;
  if (opts.journaling) {
    store.ha.installTriggers({
      on: () => (recording ? 1 : 0),
      seq: () => { wrote = true; return pending; },
      epoch: () => epoch,
    });
  }
  return {
    admit(_action: string, o: ChangeOptions) {
      if (pair.role === 'standby' && !o.replicated) throw apiError('WGCP_HA_STANDBY', undefined, { primary: pair.partnerUrl ?? '' });
    },
    begin(s: Store, o: ChangeOptions) {
      replicated = o.replicated === true;
      wrote = false;
      if (replicated) return;
      const at = s.ha.state();
      pending = at.seq + 1;
      epoch = at.epoch;
      recording = opts.journaling;
    },
    end(s: Store): number | null {
      recording = false;
      if (replicated) return null;
      const at = s.ha.advance(opts.journaling);
      pair.committed();
      if (opts.journaling && at.seq % Math.min(PRUNE_EVERY, opts.keep) === 0) s.ha.prune(opts.keep);
      // A change that wrote no replicated row has nothing for the partner to hold.
      return wrote ? at.seq : null;
    },
    close() { recording = false; },
    held: (seq: number) => pair.held(seq),
  };
}
