// Which tables a daemon's writes go to, read from outside: the SQLite WAL file's frame
// headers (each names the page it holds) tallied by page as they appear, the pages then
// named by table through dbstat. A checkpoint restarts the WAL with new salts; polled every
// second or so, the frames written between the last poll and a restart are missed, a
// second of a few minutes. The main file's checkpoint writes copy the same pages once more.
import fs from 'node:fs';
import Database from 'better-sqlite3';

const WAL_HEADER = 32;
const FRAME_HEADER = 24;

export class WalTally {
  /** Frames seen by page number. */
  readonly byPage = new Map<number, number>();
  frames = 0;
  pageSize = 4096;
  private salt = '';
  private next = 0;

  constructor(private readonly dbFile: string) {}

  poll(): void {
    let fd: number;
    try { fd = fs.openSync(`${this.dbFile}-wal`, 'r'); } catch { return; }
    try {
      const head = Buffer.alloc(WAL_HEADER);
      if (fs.readSync(fd, head, 0, WAL_HEADER, 0) < WAL_HEADER) return;
      this.pageSize = head.readUInt32BE(8) || 65536;
      const salt = head.subarray(16, 24).toString('hex');
      if (salt !== this.salt) { this.salt = salt; this.next = 0; }
      const frame = Buffer.alloc(FRAME_HEADER);
      for (;;) {
        const at = WAL_HEADER + this.next * (FRAME_HEADER + this.pageSize);
        if (fs.readSync(fd, frame, 0, FRAME_HEADER, at) < FRAME_HEADER) return;
        // A frame of an older generation (before the last restart) carries the old salts.
        if (frame.subarray(8, 16).toString('hex') !== salt) return;
        const page = frame.readUInt32BE(0);
        this.byPage.set(page, (this.byPage.get(page) ?? 0) + 1);
        this.frames++;
        this.next++;
      }
    } finally {
      fs.closeSync(fd);
    }
  }

  /** Counts from now on: the frames already in the WAL are passed over. */
  mark(): void {
    this.poll();
    this.byPage.clear();
    this.frames = 0;
  }

  /** Bytes of WAL frames by table or index (pages no table holds now: 'free or schema'). */
  byTable(): Map<string, number> {
    const owner = new Map<number, string>();
    const db = new Database(this.dbFile, { readonly: true, fileMustExist: true });
    try {
      for (const r of db.prepare('SELECT name, pageno FROM dbstat').iterate() as Iterable<{ name: string; pageno: number }>) owner.set(r.pageno, r.name);
    } finally {
      db.close();
    }
    const out = new Map<string, number>();
    for (const [page, n] of this.byPage) {
      const name = owner.get(page) ?? 'free or schema';
      out.set(name, (out.get(name) ?? 0) + n * (FRAME_HEADER + this.pageSize));
    }
    return new Map([...out].sort((a, b) => b[1] - a[1]));
  }
}
