// The page's words as a language shows them, read from web/src/locales as the build reads
// them: a catalogue (en.ts, or de.json and the others) joined with that language's column of
// the fields' words (fields.ts, every language per key).
import fs from 'node:fs';
import path from 'node:path';
import { transformSync } from 'esbuild';
import { REPO } from './web-support';

export const LOCALES = path.join(REPO, 'web', 'src', 'locales');
export const PAGE_LANGUAGES = ['en', 'de', 'fr', 'es', 'zh-CN'];

/** fields.ts's key to each language's words, as the file says them (compiled, then run). */
export function fieldWords(): Record<string, Record<string, string>> {
  const { code } = transformSync(fs.readFileSync(path.join(LOCALES, 'fields.ts'), 'utf8'), { loader: 'ts', format: 'cjs' });
  const module = { exports: {} as { FIELD_WORDS?: Record<string, Record<string, string>> } };
  new Function('module', 'exports', code)(module, module.exports);
  if (!module.exports.FIELD_WORDS) throw new Error('fields.ts exports no FIELD_WORDS');
  return module.exports.FIELD_WORDS;
}

/** English's catalogue alone: the lines of en.ts, without the fields' words it spreads in. */
export function englishCatalogue(): Record<string, string> {
  const text = fs.readFileSync(path.join(LOCALES, 'en.ts'), 'utf8');
  return Object.fromEntries([...text.matchAll(/^\s+'([\w.]+)': '((?:[^'\\]|\\.)*)',$/gm)].map((m) => [m[1], m[2].replace(/\\'/g, "'")]));
}

/** A language's catalogue alone (de.json, ...), or English's. */
export const catalogue = (lang: string): Record<string, string> =>
  lang === 'en' ? englishCatalogue() : JSON.parse(fs.readFileSync(path.join(LOCALES, `${lang}.json`), 'utf8')) as Record<string, string>;

/** Every word the page has in a language: its catalogue and its column of the fields' words. */
export function pageWords(lang: string): Record<string, string> {
  const fields = Object.fromEntries(Object.entries(fieldWords()).filter(([, w]) => lang in w).map(([k, w]) => [k, w[lang]]));
  return { ...catalogue(lang), ...fields };
}
