// The jobs' own small facts, by name (job_state): the month the usage was last reset in,
// whether unmarked links are adopted once, and the versions the caches key on.
import type { DB } from './db';

export class JobStateTable {
  private readonly getStmt;
  private readonly setStmt;

  constructor(db: DB) {
    this.getStmt = db.prepare('SELECT value FROM job_state WHERE name = ?').pluck();
    this.setStmt = db.prepare('INSERT INTO job_state (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value');
  }

  get(name: string): string | null { return (this.getStmt.get(name) as string | undefined) ?? null; }
  set(name: string, value: string): void { this.setStmt.run(name, value); }
}
