/**
 * The language a visitor picked is remembered in this browser. The URL still decides what a
 * page shows (`/fr/...` is French for everyone, crawlers included); a path without a language
 * prefix is sent to the remembered language, so opening `/` again after choosing French shows
 * French instead of English.
 */
import { DEFAULT_LANGUAGE, isLanguage, languageFromPath, withLanguage, type Language } from '@/lib/languages';
import { STORAGE_KEYS, storage, type KeyValueStorage } from '@/lib/storage';

export function rememberLanguage(language: Language, store: KeyValueStorage = storage): void {
  store.set(STORAGE_KEYS.language, language);
}

export function rememberedLanguage(store: KeyValueStorage = storage): Language | null {
  const stored = store.get(STORAGE_KEYS.language);
  return isLanguage(stored) ? stored : null;
}

/** The language a page opens in: the URL's prefix, else the remembered choice, else English. */
export function languageForPath(pathname: string, store: KeyValueStorage = storage): Language {
  return languageFromPath(pathname) ?? rememberedLanguage(store) ?? DEFAULT_LANGUAGE;
}

/**
 * Where an unprefixed path should go for this visitor, or null to stay. English is the
 * unprefixed language, so only another remembered language moves the visitor.
 */
export function preferredLocation(pathname: string, store: KeyValueStorage = storage): string | null {
  if (languageFromPath(pathname)) return null;
  const remembered = rememberedLanguage(store);
  if (!remembered || remembered === DEFAULT_LANGUAGE) return null;
  return withLanguage(pathname || '/', remembered);
}
