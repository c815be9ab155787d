// Passkeys (issue 38): WebAuthn credentials. The owner is either a stored API key or token
// (the passkey is its second factor at the page's sign-in, beside TOTP; it goes with the
// credential) or a person of single sign-on (the passkey signs that person in by itself,
// with the role the role mapping gave at their last single sign-on, kept in owner_role).
export const PASSKEY_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE passkeys (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    webauthn_id TEXT NOT NULL UNIQUE,
    public_key BLOB NOT NULL,
    counter INTEGER NOT NULL DEFAULT 0,
    transports TEXT NOT NULL DEFAULT '',
    name TEXT NOT NULL,
    owner_credential_id INTEGER REFERENCES credentials(id) ON DELETE CASCADE,
    owner_subject TEXT,
    owner_email TEXT,
    owner_role TEXT,
    created_at TEXT NOT NULL,
    last_used_at TEXT,
    CHECK ((owner_credential_id IS NULL) <> (owner_subject IS NULL))
  );
  CREATE INDEX passkeys_owner_credential ON passkeys(owner_credential_id) WHERE owner_credential_id IS NOT NULL;
  CREATE INDEX passkeys_owner_subject ON passkeys(owner_subject) WHERE owner_subject IS NOT NULL;
  `,
];
