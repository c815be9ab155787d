// Each server's last kernel repair (shown with the server): written in the repair's own
// transaction, so that it outlives a restart; a deleted server's row goes with it.
import type { DB } from './db';

/** The reconciler's last repair of a server's part of the kernel (counts by kind, no keys). */
export interface KernelRepairNote { at: string; repairs: number; kinds: Record<string, number> }

interface Row { id: number; at: string; repairs: number; kinds: string }
const noteOf = (r: Row): KernelRepairNote => ({ at: r.at, repairs: r.repairs, kinds: JSON.parse(r.kinds) as Record<string, number> });

export class KernelRepairTable {
  private readonly noteStmt;
  private readonly getStmt;

  constructor(db: DB) {
    // A server deleted since the repair was seen has no row to keep.
    this.noteStmt = db.prepare(`INSERT INTO kernel_repairs (server_id, at, repairs, kinds) SELECT @id, @at, @repairs, @kinds
      WHERE EXISTS (SELECT 1 FROM servers WHERE id = @id)
      ON CONFLICT (server_id) DO UPDATE SET at = excluded.at, repairs = excluded.repairs, kinds = excluded.kinds`);
    this.getStmt = db.prepare('SELECT server_id AS id, at, repairs, kinds FROM kernel_repairs WHERE server_id = ?');
  }

  note(serverId: number, note: KernelRepairNote): void {
    this.noteStmt.run({ id: serverId, at: note.at, repairs: note.repairs, kinds: JSON.stringify(note.kinds) });
  }

  /** A server's last repair; undefined: none yet. */
  get(serverId: number): KernelRepairNote | undefined {
    const row = this.getStmt.get(serverId) as Row | undefined;
    return row && noteOf(row);
  }
}
