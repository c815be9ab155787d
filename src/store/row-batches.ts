// One statement run over many rows, a batch of rows a call: `VALUES (?, ?), (?, ?), …` with
// the rows' values bound in place. At 10,000 rows a usage cycle spent 20 ms on one call a
// row and half that in batches of 50; the rows past the last whole batch go one a call.
import type { DB } from './db';

export const BATCH_ROWS = 50;

/** Writes row `i`'s values into `args` from index `at`, `width` of them. */
export type FillRow = (i: number, args: unknown[], at: number) => void;

export class RowBatches {
  private readonly batch;
  private readonly single;
  // Reused call after call: a cycle's arguments make no garbage of their own.
  private readonly batchArgs: unknown[];
  private readonly singleArgs: unknown[];

  /** `sql` gets the `VALUES` rows' placeholders, e.g. `(?, ?), (?, ?)`, and returns the statement. */
  constructor(db: DB, sql: (rows: string) => string, private readonly width: number, private readonly rows = BATCH_ROWS) {
    const row = `(${new Array(width).fill('?').join(', ')})`;
    this.batch = db.prepare(sql(new Array(rows).fill(row).join(', ')));
    this.single = db.prepare(sql(row));
    this.batchArgs = new Array(rows * width);
    this.singleArgs = new Array(width);
  }

  /** Runs the statement for rows 0 to count - 1 (inside the caller's transaction). */
  run(count: number, fill: FillRow): void {
    let i = 0;
    for (; i + this.rows <= count; i += this.rows) {
      for (let j = 0; j < this.rows; j++) fill(i + j, this.batchArgs, j * this.width);
      this.batch.run(this.batchArgs);
    }
    for (; i < count; i++) {
      fill(i, this.singleArgs, 0);
      this.single.run(this.singleArgs);
    }
  }
}
