// Migrations of issue 36 (the standby router), after passkeys.ts.
export const HA_MIGRATIONS: readonly string[] = [
  // ---- The change journal: each committed change's (epoch, sequence), and its rows ----
  // ha_state: where this router stands (the last change it holds). ha_epochs: the first
  // sequence of each epoch, so that a router back from an older epoch can tell which of its
  // changes the pair never saw. ha_journal: the rows each change wrote to a replicated table
  // (the daemon's triggers fill it while a partner is configured; pruned to a bounded tail:
  // ha_state.pruned is the last sequence whose rows are gone, or were never kept, alone).
  // peer_endpoints: the primary's last-known endpoint of each peer, sent with the usage cycle
  // so that a promoted standby can start the handshakes itself.
  `
  CREATE TABLE ha_state (id INTEGER PRIMARY KEY CHECK (id = 1), epoch INTEGER NOT NULL, seq INTEGER NOT NULL, pruned INTEGER NOT NULL);
  INSERT INTO ha_state (id, epoch, seq, pruned) VALUES (1, 1, 0, 0);
  CREATE TABLE ha_epochs (epoch INTEGER PRIMARY KEY, start_seq INTEGER NOT NULL);
  INSERT INTO ha_epochs (epoch, start_seq) VALUES (1, 1);
  CREATE TABLE ha_journal (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    seq INTEGER NOT NULL,
    epoch INTEGER NOT NULL,
    tbl TEXT NOT NULL,
    op TEXT NOT NULL CHECK (op IN ('I', 'U', 'D')),
    pk TEXT NOT NULL,
    row TEXT
  );
  CREATE INDEX ha_journal_seq ON ha_journal (seq);
  CREATE TABLE peer_endpoints (
    peer_id INTEGER PRIMARY KEY REFERENCES peers(id) ON DELETE CASCADE,
    endpoint TEXT NOT NULL,
    at TEXT NOT NULL
  );
  `,
];
