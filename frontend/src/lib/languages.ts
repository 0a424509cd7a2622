/** The ten product languages (spec section 1), English being the source of typed keys. */

export const LANGUAGES = ['en', 'de', 'es', 'fr', 'id', 'it', 'ja', 'ko', 'pl', 'pt'] as const;
export type Language = (typeof LANGUAGES)[number];
export const DEFAULT_LANGUAGE: Language = 'en';

export const LANGUAGE_NAMES: Record<Language, string> = {
  en: 'English',
  de: 'Deutsch',
  es: 'Español',
  fr: 'Français',
  id: 'Bahasa Indonesia',
  it: 'Italiano',
  ja: '日本語',
  ko: '한국어',
  pl: 'Polski',
  pt: 'Português',
};

export function isLanguage(value: unknown): value is Language {
  return typeof value === 'string' && (LANGUAGES as readonly string[]).includes(value);
}

/** The language named by the first path segment (`/de/...`), if it is a supported one. */
export function languageFromPath(pathname: string): Language | null {
  const first = pathname.split('/')[1] ?? '';
  return isLanguage(first) ? first : null;
}

/**
 * The path without its leading language segments: `/de/ai-boyfriend` → `/ai-boyfriend`.
 * A doubled prefix (`/en/en/chat`, from an old link) loses every one of them.
 */
export function stripLanguage(pathname: string): string {
  let path = pathname || '/';
  for (let lng = languageFromPath(path); lng; lng = languageFromPath(path)) {
    const rest = path.slice(lng.length + 1);
    path = rest === '' ? '/' : rest;
  }
  return path;
}

/** Puts `path` under the language prefix, keeping English unprefixed unless it was asked for. */
export function withLanguage(path: string, lng: Language | null): string {
  if (!lng) return path;
  return path === '/' ? `/${lng}/` : `/${lng}${path}`;
}

/**
 * The same page in `lng`, for a language switch: English at its unprefixed address (the one
 * the canonical link and the sitemap name), any other language under its `/{lng}/` prefix;
 * never a prefix on a prefix.
 */
export function pathInLanguage(pathname: string, lng: Language): string {
  const path = stripLanguage(pathname);
  return lng === DEFAULT_LANGUAGE ? path : withLanguage(path, lng);
}
