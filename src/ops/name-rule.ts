// The one rule for names people give things (servers, peers, webhooks, keys and tokens, the
// mail sender, imported clients): they are shown in lists and links, so a blank name (a blank
// row, an invisible link) or one holding control or text-direction characters is refused.
// Pure: the API's field readers, the CLI and import all ask it.

// C0 controls (NUL, newline...), DEL and C1 controls; the bidi embeddings and overrides
// (U+202A-U+202E) and isolates (U+2066-U+2069), which reorder what is shown after them.
export const FORBIDDEN_IN_NAMES = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/u;

const codePoint = (c: string) => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

/** Why `name` is refused ("must not …"), or null when it is fine. The empty name is the caller's rule. */
export function nameProblem(name: string): string | null {
  const bad = FORBIDDEN_IN_NAMES.exec(name);
  if (bad) return `must not hold control or text-direction characters (it holds ${codePoint(bad[0])})`;
  if (name.length > 0 && name.trim() === '') return 'must not be blank (only spaces)';
  return null;
}
