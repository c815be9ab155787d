// A standby's writes, each a change of the runner marked `replicated` (admitted on a
// standby, never journaled again), and the pair's changes of epoch (docs/ha.md):
//   applyFollowed       one answer of the primary's tail: its rows in one transaction, then
//                       the kernel of the servers they touched
//   catchUpFromSnapshot the primary's snapshot (the backup format) replaces every row, as a
//                       live restore does (the database before it is kept beside it)
//   setAsideLoneChanges a former primary's changes the new primary never had, written to a
//                       file of the data folder and said once in the log and the audit log
//   promote             a new epoch begins with this router as primary
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { App } from '../app';
import { writeSecretFile } from '../first-key';
import { snapshotPosition, type EpochStart, type HaPosition, type JournalEntry, type SnapshotPosition } from '../store/ha';
import { jobActor } from './runner';
import { syncServersToKernel, touchedServers, type TouchedServers } from './ha-kernel';
import { pruneEvery, pruneWhenDue } from './ha-journal';
import { fileStamp, stageRestore } from './restore';
import { restoreStaged } from './restore-live';

export const HA_ACTOR = jobActor('ha');

/** One answer of the primary's tail: the changes after the follower's sequence, up to `upTo`. */
export interface TailAnswer {
  epoch: number;
  /** The primary's last sequence (the follower is behind by seq - upTo). */
  seq: number;
  upTo: number;
  epochs: EpochStart[];
  entries: JournalEntry[];
}

/** The epoch a sequence belongs to, by the epochs' first sequences. */
export function epochOf(epochs: readonly { epoch: number; startSeq: number }[], seq: number): number {
  let e = 1;
  for (const x of epochs) if (x.startSeq <= seq && x.epoch > e) e = x.epoch;
  return e;
}

/** Stores one tail answer and brings the kernel along; resolves to the position now held. */
export async function applyFollowed(app: App, answer: TailAnswer): Promise<HaPosition> {
  const at: HaPosition = { epoch: epochOf(answer.epochs, answer.upTo), seq: answer.upTo };
  let touched: TouchedServers = new Map();
  await app.runner.run('ha.follow', (store) => {
    touched = touchedServers(answer.entries, (id) => store.peers.serverOf(id), () => store.servers.list().map((s) => s.id));
    return {
      commit({ store: s }) {
        const from = s.ha.state().seq;
        s.ha.applyEntries(answer.entries);
        for (const e of answer.epochs) s.ha.beginEpoch(e);
        s.ha.setPosition(at);
        // The standby's journal (what it serves once promoted) is bounded as the primary's is.
        const keep = app.config.ha?.journalKeep ?? 10_000;
        pruneWhenDue(s, keep, Math.floor(at.seq / pruneEvery(keep)) > Math.floor(from / pruneEvery(keep)), answer.entries.length);
        return at;
      },
      audit: false,
    };
  }, { replicated: true, actor: HA_ACTOR });
  // The kernel follows in its own turn: the next poll (the primary's acknowledgement) need not wait for it.
  if (touched.size) void syncServersToKernel(app, touched);
  return at;
}

/** Replaces every row with the primary's snapshot (a backup file at `file`, removed after). */
export async function catchUpFromSnapshot(app: App, file: string): Promise<HaPosition> {
  let position: SnapshotPosition;
  try {
    position = snapshotPosition(file);
    await stageRestore(app.config.dataDir, file, null);
  } finally {
    fs.rmSync(file, { force: true });
  }
  // A restore keeps this router's journal tables: the snapshot's position is taken in a change of its own.
  // Until then this router says it holds nothing: cut off between the two, it gets the whole
  // journal again (each row ends as its last change left it) or another snapshot.
  await app.runner.run('ha.snapshot', () => ({ commit({ store }) { store.ha.setPosition({ epoch: 1, seq: 0 }); }, audit: false }), { replicated: true, actor: HA_ACTOR });
  const r = await restoreStaged(app, { replicated: true, actor: HA_ACTOR });
  const at = await app.runner.run('ha.snapshot', () => ({
    commit({ store }) { store.ha.resetTo(position); return store.ha.state(); },
    audit: false,
  }), { replicated: true, actor: HA_ACTOR });
  app.log.info('the standby caught up from the primary\'s snapshot', { epoch: at.epoch, seq: at.seq, servers: r.servers, peers: r.peers, before: r.before });
  return at;
}

/** The file a former primary's lone changes are kept in. */
export const loneChangesFile = (dataDir: string, now: Date): string => path.join(dataDir, `ha-lone-changes-${fileStamp(now)}.json`);

/**
 * Keeps the changes this router committed from sequence `since` on (which the primary never
 * had) in a file of the data folder (mode 0600: rows hold keys), says so in the log and the
 * audit log once, and resolves to the file (null when there were none in the journal).
 */
export async function setAsideLoneChanges(app: App, since: number): Promise<string | null> {
  const own = app.store.ha.state();
  const entries = app.store.ha.entriesAfter(since - 1, own.seq);
  if (entries.length === 0 && own.seq < since) return null;
  const file = loneChangesFile(app.config.dataDir, app.now());
  writeSecretFile(file, JSON.stringify({ epoch: own.epoch, from: since, to: own.seq, entries }, null, 1) + '\n');
  app.log.warn('this router committed changes the primary never had: they are kept aside and it follows the primary', { from: since, to: own.seq, changes: new Set(entries.map((e) => e.seq)).size, file });
  await app.runner.run('ha.setAside', () => ({
    commit: () => ({ id: null, file }),
    audit: () => ({ targetType: 'ha', targetId: null, summary: { from: since, to: own.seq, file: path.basename(file) } }),
  }), { replicated: true, actor: HA_ACTOR });
  return file;
}

/**
 * A new epoch, above this router's and its partner's, begins with the next change. Its node
 * is drawn at random: two routers promoted from the same epoch while cut off from each other
 * take the same number, and the higher node is the pair's line (docs/ha.md).
 */
export function promote(app: App, partnerEpoch: number): Promise<HaPosition> {
  return app.runner.run('ha.promote', (store) => {
    const own = store.ha.state();
    const at = { epoch: Math.max(own.epoch, partnerEpoch) + 1, seq: own.seq };
    return {
      commit({ store: s }) {
        s.ha.beginEpoch({ epoch: at.epoch, startSeq: at.seq + 1, node: crypto.randomBytes(8).toString('hex') });
        s.ha.setPosition(at);
        return at;
      },
      audit: (r) => ({ targetType: 'ha', targetId: null, summary: { role: 'primary', epoch: r.epoch, seq: r.seq } }),
    };
  }, { replicated: true, actor: HA_ACTOR });
}
