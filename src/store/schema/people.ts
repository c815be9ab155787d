// People (issue 38): a page session opened by single sign-on belongs to a person, not to a
// key. It carries who (the provider's subject and the email it gave) and the role the role
// mapping gave at sign-in; credential_id is NULL and key_hash is '' for those.
export const PEOPLE_MIGRATIONS: readonly string[] = [
  `
  ALTER TABLE sessions ADD COLUMN person_subject TEXT;
  ALTER TABLE sessions ADD COLUMN person_email TEXT;
  ALTER TABLE sessions ADD COLUMN person_role TEXT;
  CREATE INDEX sessions_person ON sessions(person_subject) WHERE person_subject IS NOT NULL;
  `,
];
