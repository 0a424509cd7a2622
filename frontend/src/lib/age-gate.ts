/**
 * The age confirmation of spec section 2: a first visit meets it before any content, until
 * the visitor confirms being 18 or over. Crawlers and the policy pages the mobile app embeds
 * are not gated (crawlers index the pages; the app has its own age check).
 */
import { stripLanguage } from '@/lib/languages';
import { APP_EMBEDDED_PATHS } from '@/lib/routes';
import { STORAGE_KEYS, storage, type KeyValueStorage } from '@/lib/storage';

export const MINIMUM_AGE = 18;

/** Where "I am under 18" sends the visitor: off the site, to a neutral page. */
export const AGE_GATE_EXIT_URL = 'https://www.google.com/';

/** Search engines, link previews and pre-renderers, by the names they give in their user agent. */
const CRAWLER_PATTERN =
  /bot\b|bot\/|crawler|spider|slurp|mediapartners|bingpreview|facebookexternalhit|facebot|ia_archiver|embedly|quora link preview|whatsapp|telegrambot|skypeuripreview|vkshare|redditbot|applebot|yandex|baiduspider|duckduckgo|petalbot|semrush|ahrefs|lighthouse|chrome-lighthouse|google-inspectiontool|googleother|prerender/i;

export function isCrawler(userAgent: string): boolean {
  return CRAWLER_PATTERN.test(userAgent);
}

export function isAppEmbeddedPath(pathname: string): boolean {
  return APP_EMBEDDED_PATHS.includes(stripLanguage(pathname));
}

/** `eighteenTipShow` is 'false' once confirmed; absent (or anything else) means ask. */
export function ageConfirmed(store: KeyValueStorage = storage): boolean {
  return store.get(STORAGE_KEYS.eighteenTipShow) === 'false';
}

export function confirmAge(store: KeyValueStorage = storage): void {
  store.set(STORAGE_KEYS.eighteenTipShow, 'false');
}

export function needsAgeGate(pathname: string, userAgent: string, store: KeyValueStorage = storage): boolean {
  return !ageConfirmed(store) && !isCrawler(userAgent) && !isAppEmbeddedPath(pathname);
}
