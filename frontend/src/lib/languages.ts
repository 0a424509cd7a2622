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

/** The path without a leading language segment: `/de/ai-boyfriend` → `/ai-boyfriend`. */
export function stripLanguage(pathname: string): string {
  const lng = languageFromPath(pathname);
  if (!lng) return pathname || '/';
  const rest = pathname.slice(lng.length + 1);
  return rest === '' ? '/' : rest;
}

/** Puts `path` under the language prefix, keeping English unprefixed unless it was asked for. */
export function withLanguage(path: string, lng: Language | null): string {
  if (!lng) return path;
  return path === '/' ? `/${lng}/` : `/${lng}${path}`;
}
