// Passkeys (WebAuthn credentials) of keys and tokens (a second factor) and of people (a
// first factor). A sign-in moves the signature counter forward in one UPDATE that fails
// for a counter not after the stored one (a cloned authenticator, a replayed assertion).
import type { Role } from './roles';
import type { Store } from './store';

/** Whose passkey: a stored key or token's, or a person's of single sign-on (with the role last mapped, null: none now). */
export type PasskeyOwner = { credentialId: number } | { subject: string; email: string | null; role: Role | null };

export interface PasskeyRecord {
  id: number;
  /** The WebAuthn credential id, base64url. */
  webauthnId: string;
  publicKey: Uint8Array<ArrayBuffer>;
  counter: number;
  transports: string[];
  name: string;
  owner: PasskeyOwner;
  createdAt: string;
  lastUsedAt: string | null;
}

export interface NewPasskey { webauthnId: string; publicKey: Uint8Array; counter: number; transports: string[]; name: string; owner: PasskeyOwner; createdAt: string }

interface Row {
  id: number; webauthnId: string; publicKey: Buffer; counter: number; transports: string; name: string;
  ownerCredentialId: number | null; ownerSubject: string | null; ownerEmail: string | null; ownerRole: string | null;
  createdAt: string; lastUsedAt: string | null;
}

const COLS = `id, webauthn_id AS webauthnId, public_key AS publicKey, counter, transports, name,
  owner_credential_id AS ownerCredentialId, owner_subject AS ownerSubject, owner_email AS ownerEmail, owner_role AS ownerRole,
  created_at AS createdAt, last_used_at AS lastUsedAt`;

function recordOf(r: Row): PasskeyRecord {
  const owner: PasskeyOwner = r.ownerCredentialId !== null ? { credentialId: r.ownerCredentialId } : { subject: r.ownerSubject!, email: r.ownerEmail, role: r.ownerRole as Role | null };
  return {
    id: r.id, webauthnId: r.webauthnId, publicKey: new Uint8Array(r.publicKey), counter: r.counter,
    transports: r.transports === '' ? [] : r.transports.split(','), name: r.name, owner, createdAt: r.createdAt, lastUsedAt: r.lastUsedAt,
  };
}

/** The WHERE clause and its parameter that select an owner's passkeys. */
const ownerWhere = (o: PasskeyOwner): [string, number | string] => ('credentialId' in o ? ['owner_credential_id = ?', o.credentialId] : ['owner_subject = ?', o.subject]);

export class PasskeyTable {
  private readonly insertStmt;
  private readonly getStmt;
  private readonly byWebauthnStmt;
  private readonly byCredentialStmt;
  private readonly bySubjectStmt;
  private readonly renameStmt;
  private readonly deleteStmt;
  private readonly deleteOfCredentialStmt;
  private readonly useStmt;
  private readonly personStmt;

  constructor(store: Store) {
    const db = store.db;
    this.insertStmt = db.prepare(`INSERT INTO passkeys (webauthn_id, public_key, counter, transports, name, owner_credential_id, owner_subject, owner_email, owner_role, created_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
    this.getStmt = db.prepare(`SELECT ${COLS} FROM passkeys WHERE id = ?`);
    this.byWebauthnStmt = db.prepare(`SELECT ${COLS} FROM passkeys WHERE webauthn_id = ?`);
    this.byCredentialStmt = db.prepare(`SELECT ${COLS} FROM passkeys WHERE owner_credential_id = ? ORDER BY id`);
    this.bySubjectStmt = db.prepare(`SELECT ${COLS} FROM passkeys WHERE owner_subject = ? ORDER BY id`);
    this.renameStmt = db.prepare('UPDATE passkeys SET name = ? WHERE id = ?');
    this.deleteStmt = db.prepare('DELETE FROM passkeys WHERE id = ?');
    this.deleteOfCredentialStmt = db.prepare('DELETE FROM passkeys WHERE owner_credential_id = ?');
    // A counter of 0 both before and after: an authenticator that keeps no counter (allowed
    // by WebAuthn); any other answer must move it forward.
    this.useStmt = db.prepare('UPDATE passkeys SET counter = @counter, last_used_at = @now WHERE id = @id AND (counter < @counter OR (counter = 0 AND @counter = 0))');
    this.personStmt = db.prepare('UPDATE passkeys SET owner_email = ?, owner_role = ? WHERE owner_subject = ?');
  }

  insert(p: NewPasskey): PasskeyRecord {
    const o = p.owner;
    const person = 'subject' in o ? o : null;
    const id = Number(this.insertStmt.run(p.webauthnId, Buffer.from(p.publicKey), p.counter, p.transports.join(','), p.name,
      'credentialId' in o ? o.credentialId : null, person?.subject ?? null, person?.email ?? null, person?.role ?? null, p.createdAt).lastInsertRowid);
    return this.get(id)!;
  }

  get(id: number): PasskeyRecord | null {
    const r = this.getStmt.get(id) as Row | undefined;
    return r ? recordOf(r) : null;
  }

  byWebauthnId(webauthnId: string): PasskeyRecord | null {
    const r = this.byWebauthnStmt.get(webauthnId) as Row | undefined;
    return r ? recordOf(r) : null;
  }

  ofOwner(owner: PasskeyOwner): PasskeyRecord[] {
    const [, value] = ownerWhere(owner);
    return ((('credentialId' in owner ? this.byCredentialStmt : this.bySubjectStmt).all(value)) as Row[]).map(recordOf);
  }

  rename(id: number, name: string): boolean { return this.renameStmt.run(name, id).changes > 0; }

  remove(id: number): boolean { return this.deleteStmt.run(id).changes > 0; }

  /** Removes every passkey of a key or token (a lost authenticator); how many. */
  removeOfCredential(credentialId: number): number { return this.deleteOfCredentialStmt.run(credentialId).changes; }

  /** Records a sign-in: false when `counter` is not after the stored one (nothing changed). */
  use(id: number, counter: number, now: string): boolean { return this.useStmt.run({ id, counter, now }).changes > 0; }

  /** A person's email and mapped role as their last single sign-on gave them (null role: none). */
  updatePerson(subject: string, email: string | null, role: Role | null): number { return this.personStmt.run(email, role, subject).changes; }
}


