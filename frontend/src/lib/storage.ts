/**
 * Persistent key/value storage: local storage when the browser allows it, otherwise a
 * cookie that lasts 365 days (product spec section 3).
 */

/**
 * The names under which this browser keeps values. A key is added with the code that reads
 * it (the spec's chat background comes with its screen); a name never changes, since browsers already hold values under it.
 */
export const STORAGE_KEYS = {
  appVoucher: 'appVoucher',
  secretKey: 'secretKey',
  localNsfw: 'localNSFW',
  utmSource: 'utm_source',
  utmMedium: 'utm_medium',
  userLikeGender: 'user_like_gender',
  countdownDeadline: 'countdownDeadline',
  interestedGender: 'interestedGender',
  /** When this browser last saw a payment succeed (ms since the epoch; spec section 3). */
  paymentSuccessTime: 'paySuccessTime',
  /** 'false' once the visitor confirmed being 18 or over: the age gate no longer shows. */
  eighteenTipShow: 'eighteenTipShow',
  /** The language the visitor last picked (footer or settings); unprefixed paths follow it. */
  language: 'language',
  /** The analytics distinct id sent in the `distinctId` header and with telemetry. */
  distinctId: 'distinctId',
  /** The character builder's unfinished draft of a girlfriend (spec section 3 "create-character data"). */
  createCharacterData: 'createCharacterData',
  /** The same for a boyfriend (the spec's guy variant). */
  createCharacterDataGuy: 'createCharacterDataGuy',
  /** The builder's own state, whatever the gender (the spec's generic one): which draft was open last. */
  createCharacterDataCommon: 'createCharacterDataCommon',
} as const;

export const COOKIE_MAX_AGE_SECONDS = 365 * 24 * 60 * 60;

export interface KeyValueStorage {
  get(key: string): string | null;
  set(key: string, value: string): void;
  remove(key: string): void;
}

function localStorageUsable(): boolean {
  try {
    const probe = '__amora_probe__';
    window.localStorage.setItem(probe, probe);
    window.localStorage.removeItem(probe);
    return true;
  } catch {
    return false;
  }
}

export function createCookieStorage(doc: Document = document): KeyValueStorage {
  return {
    get(key) {
      const prefix = `${encodeURIComponent(key)}=`;
      for (const part of doc.cookie.split(';')) {
        const cookie = part.trim();
        if (cookie.startsWith(prefix)) return decodeURIComponent(cookie.slice(prefix.length));
      }
      return null;
    },
    set(key, value) {
      doc.cookie = `${encodeURIComponent(key)}=${encodeURIComponent(value)}; max-age=${COOKIE_MAX_AGE_SECONDS}; path=/; SameSite=Lax`;
    },
    remove(key) {
      doc.cookie = `${encodeURIComponent(key)}=; max-age=0; path=/; SameSite=Lax`;
    },
  };
}

function createLocalStorage(): KeyValueStorage {
  return {
    get: (key) => window.localStorage.getItem(key),
    set: (key, value) => window.localStorage.setItem(key, value),
    remove: (key) => window.localStorage.removeItem(key),
  };
}

/** Picks the backend once; exported for tests that simulate a browser without local storage. */
export function createStorage(): KeyValueStorage {
  return localStorageUsable() ? createLocalStorage() : createCookieStorage();
}

export const storage: KeyValueStorage = createStorage();
