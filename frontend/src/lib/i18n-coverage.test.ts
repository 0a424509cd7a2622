import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { I18N_LOAD_PATH, I18N_MAX_PARALLEL_READS, I18N_MAX_RETRIES, I18N_RETRY_TIMEOUT_MS } from '@/lib/i18n';
import { LANGUAGES } from '@/lib/languages';

type Tree = { [key: string]: string | Tree };

/**
 * Every namespace the app loads: the UI strings, the legal texts (loaded only by legal pages
 * and dialogs), the landing pages' copy (loaded only by those pages) and the payment
 * screens' strings (loaded only by them), the image and voice strings of issue 16, and the
 * character builder's and My AI's strings of issue 17, the user's persona of issue 18, and the voice call of issue 32.
 */
const NAMESPACES = [
  'translation',
  'legal',
  'topics',
  'payments',
  'images',
  'voice',
  'create',
  'persona',
  'call',
] as const;

const localeFile = (lng: string, ns: string) => resolve(process.cwd(), 'public/locales', lng, `${ns}.json`);
const load = (lng: string, ns: string) => JSON.parse(readFileSync(localeFile(lng, ns), 'utf8')) as Tree;

/** Arrays (sections, list items) flatten by index, so a missing paragraph is a missing key. */
function flatten(tree: Tree, prefix = ''): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, value] of Object.entries(tree)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (typeof value === 'string') out.set(path, value);
    else for (const [k, v] of flatten(value, path)) out.set(k, v);
  }
  return out;
}

/** What must survive translation: {{placeholders}} and <tags> used by <Trans>. */
const markers = (text: string) =>
  [...text.matchAll(/\{\{\s*\w+\s*\}\}|<\/?\w+>/g)].map((m) => m[0].replace(/\s/g, '')).sort();

const others = LANGUAGES.filter((lng) => lng !== 'en');
const cases = NAMESPACES.flatMap((ns) => LANGUAGES.map((lng) => [ns, lng] as const));
const otherCases = NAMESPACES.flatMap((ns) => others.map((lng) => [ns, lng] as const));
const englishOf = new Map(NAMESPACES.map((ns) => [ns, flatten(load('en', ns))]));
const english = (ns: string) => englishOf.get(ns as (typeof NAMESPACES)[number]) ?? new Map<string, string>();

describe('translations', () => {
  it('load from /locales/{lng}/{ns}.json with 10 parallel reads, 5 retries, 350 ms first retry', () => {
    expect(I18N_LOAD_PATH).toBe('/locales/{{lng}}/{{ns}}.json');
    expect(I18N_MAX_PARALLEL_READS).toBe(10);
    expect(I18N_MAX_RETRIES).toBe(5);
    expect(I18N_RETRY_TIMEOUT_MS).toBe(350);
  });

  it.each(cases)('%s: %s has a file', (ns, lng) => {
    expect(existsSync(localeFile(lng, ns))).toBe(true);
  });

  it.each(otherCases)('%s: %s has every English key and no other', (ns, lng) => {
    const translated = flatten(load(lng, ns));
    const missing = [...english(ns).keys()].filter((key) => !translated.has(key));
    const extra = [...translated.keys()].filter((key) => !english(ns).has(key));
    expect(missing, `missing in ${lng}/${ns}`).toEqual([]);
    expect(extra, `unknown in ${lng}/${ns}`).toEqual([]);
  });

  it.each(cases)('%s: %s has no empty strings and keeps placeholders and tags', (ns, lng) => {
    const translated = flatten(load(lng, ns));
    for (const [key, source] of english(ns)) {
      const text = translated.get(key);
      if (text === undefined) continue;
      expect(text.trim(), `${lng}/${ns}: ${key} is empty`).not.toBe('');
      expect(markers(text), `${lng}/${ns}: ${key}`).toEqual(markers(source));
    }
  });

  it.each(otherCases)('%s: %s is actually translated', (ns, lng) => {
    const translated = flatten(load(lng, ns));
    const long = [...english(ns)].filter(([, text]) => text.length > 40);
    const untranslated = long.filter(([key, text]) => translated.get(key) === text).map(([key]) => key);
    expect(untranslated, `${lng}/${ns} copies English`).toEqual([]);
  });

  it('keeps long texts out of the first-screen strings', () => {
    const longest = Math.max(...[...english('translation').values()].map((text) => text.length));
    expect(longest).toBeLessThan(400);
  });
});
