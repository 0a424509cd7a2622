import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { I18N_LOAD_PATH, I18N_MAX_PARALLEL_READS, I18N_MAX_RETRIES, I18N_RETRY_TIMEOUT_MS } from '@/lib/i18n';
import { LANGUAGES } from '@/lib/languages';

type Tree = { [key: string]: string | Tree };

const localeFile = (lng: string) => resolve(process.cwd(), 'public/locales', lng, 'translation.json');
const load = (lng: string) => JSON.parse(readFileSync(localeFile(lng), 'utf8')) as Tree;

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
const markers = (text: string) => [...text.matchAll(/\{\{\s*\w+\s*\}\}|<\/?\w+>/g)].map((m) => m[0].replace(/\s/g, '')).sort();

const english = flatten(load('en'));

describe('translations', () => {
  it('load from /locales/{lng}/{ns}.json with 10 parallel reads, 5 retries, 350 ms first retry', () => {
    expect(I18N_LOAD_PATH).toBe('/locales/{{lng}}/{{ns}}.json');
    expect(I18N_MAX_PARALLEL_READS).toBe(10);
    expect(I18N_MAX_RETRIES).toBe(5);
    expect(I18N_RETRY_TIMEOUT_MS).toBe(350);
  });

  it.each(LANGUAGES)('%s has a translation file', (lng) => {
    expect(existsSync(localeFile(lng))).toBe(true);
  });

  it.each(LANGUAGES.filter((lng) => lng !== 'en'))('%s has every English key and no other', (lng) => {
    const translated = flatten(load(lng));
    const missing = [...english.keys()].filter((key) => !translated.has(key));
    const extra = [...translated.keys()].filter((key) => !english.has(key));
    expect(missing, `missing in ${lng}`).toEqual([]);
    expect(extra, `unknown in ${lng}`).toEqual([]);
  });

  it.each(LANGUAGES)('%s has no empty strings and keeps placeholders and tags', (lng) => {
    const translated = flatten(load(lng));
    for (const [key, source] of english) {
      const text = translated.get(key);
      if (text === undefined) continue;
      expect(text.trim(), `${lng}: ${key} is empty`).not.toBe('');
      expect(markers(text), `${lng}: ${key}`).toEqual(markers(source));
    }
  });

  it.each(LANGUAGES.filter((lng) => lng !== 'en'))('%s is actually translated', (lng) => {
    const translated = flatten(load(lng));
    const long = [...english].filter(([, text]) => text.length > 40);
    const untranslated = long.filter(([key, text]) => translated.get(key) === text).map(([key]) => key);
    expect(untranslated, `${lng} copies English`).toEqual([]);
  });
});
