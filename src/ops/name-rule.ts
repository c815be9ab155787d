// The one rule for names people give things (servers, peers, webhooks, keys and tokens, the
// mail sender, imported clients): they are shown in lists, links, logs and mail, so a blank
// name (a blank row, an invisible link), one that looks like another ("admin" and "ad<ZWSP>min"),
// or one that breaks a line or reorders the text after it is refused. Refused by Unicode
// category, not by a list, so that a character no one thought of is refused too:
//   Cc  controls (NUL, newline, tab, DEL, C1)       Cf  format (U+200B, U+200F, U+061C, U+FEFF, bidi)
//   Zl  line separator (U+2028)  Zp  paragraph separator (U+2029)
//   Zs  space separators other than the ordinary space U+0020 (U+00A0, U+3000...)
//   Co  private use   Cs  lone surrogates   Cn  unassigned
//   Default_Ignorable_Code_Point: what is drawn as nothing (Hangul fillers U+3164, U+115F,
//   U+1160, U+FFA0; variation selectors; U+034F...).
// Pure: the API's field readers, the CLI and import all ask it.

export const FORBIDDEN_IN_NAMES = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Co}\p{Cs}\p{Cn}\p{Default_Ignorable_Code_Point}]|(?! )\p{Zs}/u;

const codePoint = (c: string) => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

/** Why `name` is refused ("must not …"), or null when it is fine. The empty name is the caller's rule. */
export function nameProblem(name: string): string | null {
  const bad = FORBIDDEN_IN_NAMES.exec(name);
  if (bad) return `must not hold control, format, separator or invisible characters (it holds ${codePoint(bad[0])}); ordinary spaces are fine`;
  if (name.length > 0 && name.trim() === '') return 'must not be blank (only spaces)';
  return null;
}
