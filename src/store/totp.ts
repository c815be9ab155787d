// Two-factor secrets of credentials (for the page's sign-in) and their recovery codes,
// kept as SHA-256 hashes. A TOTP step is used at most once: accepting a code moves
// last_step forward in one UPDATE that fails for a step not after it.
import crypto from 'node:crypto';
import type { DB } from './db';

export interface TotpRecord { credentialId: number; secret: string; confirmedAt: string | null; lastStep: number }

export const hashRecoveryCode = (code: string): string =>
  crypto.createHash('sha256').update(code.replace(/[\s-]/g, '').toLowerCase(), 'utf8').digest('hex');

export class TotpTable {
  private readonly getStmt;
  private readonly beginStmt;
  private readonly confirmStmt;
  private readonly stepStmt;
  private readonly addCodeStmt;
  private readonly useCodeStmt;
  private readonly codesLeftStmt;
  private readonly resetStmt;
  private readonly resetCodesStmt;

  constructor(private readonly db: DB) {
    this.getStmt = db.prepare('SELECT credential_id AS credentialId, secret, confirmed_at AS confirmedAt, last_step AS lastStep FROM totp WHERE credential_id = ?');
    // An enrolment not yet confirmed may be started again; a confirmed one only after a reset.
    this.beginStmt = db.prepare(`INSERT INTO totp (credential_id, secret) VALUES (?, ?)
      ON CONFLICT (credential_id) DO UPDATE SET secret = excluded.secret, last_step = 0 WHERE confirmed_at IS NULL`);
    this.confirmStmt = db.prepare('UPDATE totp SET confirmed_at = ?, last_step = ? WHERE credential_id = ? AND confirmed_at IS NULL AND last_step < ?');
    this.stepStmt = db.prepare('UPDATE totp SET last_step = ? WHERE credential_id = ? AND confirmed_at IS NOT NULL AND last_step < ?');
    this.addCodeStmt = db.prepare('INSERT INTO totp_recovery (credential_id, hash) VALUES (?, ?)');
    this.useCodeStmt = db.prepare('UPDATE totp_recovery SET used_at = ? WHERE credential_id = ? AND hash = ? AND used_at IS NULL');
    this.codesLeftStmt = db.prepare('SELECT COUNT(*) FROM totp_recovery WHERE credential_id = ? AND used_at IS NULL').pluck();
    this.resetStmt = db.prepare('DELETE FROM totp WHERE credential_id = ?');
    this.resetCodesStmt = db.prepare('DELETE FROM totp_recovery WHERE credential_id = ?');
  }

  get(credentialId: number): TotpRecord | null { return (this.getStmt.get(credentialId) as TotpRecord | undefined) ?? null; }

  /** Stores a new unconfirmed secret; false when the credential has a confirmed one already. */
  begin(credentialId: number, secret: string): boolean { return this.beginStmt.run(credentialId, secret).changes > 0; }

  /** Confirms the enrolment with the step of a good code, and stores the recovery codes' hashes. */
  confirm(credentialId: number, step: number, now: string, recoveryHashes: string[]): boolean {
    return this.db.transaction(() => {
      if (this.confirmStmt.run(now, step, credentialId, step).changes === 0) return false;
      this.resetCodesStmt.run(credentialId);
      for (const h of recoveryHashes) this.addCodeStmt.run(credentialId, h);
      return true;
    })();
  }

  /** Spends a step: false when it is not after the last one used (a replayed code). */
  useStep(credentialId: number, step: number): boolean { return this.stepStmt.run(step, credentialId, step).changes > 0; }

  /** Spends a recovery code: false when it is not one of the credential's unused codes. */
  useRecoveryCode(credentialId: number, code: string, now: string): boolean {
    return this.useCodeStmt.run(now, credentialId, hashRecoveryCode(code)).changes > 0;
  }

  recoveryCodesLeft(credentialId: number): number { return this.codesLeftStmt.get(credentialId) as number; }

  /** Removes the secret and the recovery codes (a lost phone); false when there was none. */
  reset(credentialId: number): boolean {
    return this.db.transaction(() => {
      this.resetCodesStmt.run(credentialId);
      return this.resetStmt.run(credentialId).changes > 0;
    })();
  }
}
