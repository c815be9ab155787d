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

/** The journal is pruned to its bounded tail once every this many changes (or every `keep`, when fewer)... */
const PRUNE_EVERY = 100;
/** ...and holds at most this many rows (about 15 MB; ten usage cycles at 10,000 busy peers), pruned once a quarter of it more was journaled. */
export const JOURNAL_MAX_ROWS = 100_000;

/** Prunes the journal when due: `crossed` a multiple of PRUNE_EVERY changes, or many rows journaled since the last prune. */
export function pruneWhenDue(s: Store, keep: number, crossed: boolean, rows: number): void {
  if (crossed || s.ha.noteJournaled(rows) >= JOURNAL_MAX_ROWS / 4) s.ha.prune(keep, JOURNAL_MAX_ROWS);
}
export const pruneEvery = (keep: number): number => Math.min(PRUNE_EVERY, keep);

/** The journal's settings: `usageEveryMs`, how often a usage cycle's totals are journaled (0: every cycle). */
export interface JournalSettings { journaling: boolean; keep: number; usageEveryMs?: number; now?: () => number }

export function pairJournal(store: Store, pair: PairHold, opts: JournalSettings): ChangeJournal {
  let recording = false;
  // Deferrable updates (a usage cycle's totals, store/ha.ts DEFERRABLE) named since the last
  // cycle that journaled them: 'all' until the first such cycle of this process (what the
  // last one before a restart named is not known).
  let deferring = false;
  let deferrable = false;
  let deferred: Set<number> | 'all' = 'all';
  let lastUsageJournal = -Infinity;
  const now = opts.now ?? Date.now;
  let wrote = false;
  let pending = 0;
  let epoch = 0;
  let replicated = false;
  let startChanges = 0;
  const totalChanges = (s: Store): number => s.db.prepare('SELECT total_changes()').pluck().get() as number;
  if (opts.journaling) {
    store.ha.installTriggers({
      on: () => (recording ? 1 : 0),
      seq: () => { wrote = true; return pending; },
      epoch: () => epoch,
      deferring: () => (deferring ? 1 : 0),
      defer: (key) => { if (deferred !== 'all') deferred.add(key); },
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
      startChanges = totalChanges(s);
      const at = s.ha.state();
      pending = at.seq + 1;
      epoch = at.epoch;
      recording = opts.journaling;
      deferrable = o.deferrable === true && opts.journaling;
      deferring = deferrable && now() - lastUsageJournal < (opts.usageEveryMs ?? 0);
    },
    end(s: Store): number | null {
      recording = false;
      if (replicated) return null;
      if (deferrable && !deferring) {
        // This cycle's totals are journaled: with them, the rows earlier cycles only named.
        s.ha.journalCurrent('peer_usage', deferred, pending);
        deferred = new Set();
        lastUsageJournal = now();
      }
      deferring = false;
      // A change that wrote nothing (a kernel step alone) takes no sequence: on a router alone,
      // bumping it would be a flash write for every such change.
      if (opts.journaling ? !wrote : totalChanges(s) === startChanges) return null;
      const at = s.ha.advance(opts.journaling);
      pair.committed();
      // Each row the change wrote was journaled once more (the count is a close enough guess).
      if (opts.journaling) pruneWhenDue(s, opts.keep, at.seq % pruneEvery(opts.keep) === 0, Math.floor((totalChanges(s) - startChanges) / 2));
      // A change that wrote no replicated row has nothing for the partner to hold.
      return wrote ? at.seq : null;
    },
    close() { recording = false; deferring = false; },
    held: (seq: number) => pair.held(seq),
  };
}
