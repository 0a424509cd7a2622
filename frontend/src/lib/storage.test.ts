import { afterEach, describe, expect, it, vi } from 'vitest';
import { COOKIE_MAX_AGE_SECONDS, createCookieStorage, createStorage, STORAGE_KEYS } from '@/lib/storage';

afterEach(() => {
  for (const cookie of document.cookie.split(';')) {
    const name = cookie.split('=')[0]?.trim();
    if (name) document.cookie = `${name}=; max-age=0; path=/`;
  }
});

describe('storage', () => {
  it('uses local storage when it works', () => {
    const store = createStorage();
    store.set('interestedGender', '1');
    expect(window.localStorage.getItem('interestedGender')).toBe('1');
    expect(store.get('interestedGender')).toBe('1');
    store.remove('interestedGender');
    expect(store.get('interestedGender')).toBeNull();
  });

  it('falls back to a 365-day cookie when local storage is unavailable', () => {
    vi.spyOn(Storage.prototype, 'setItem').mockImplementation(() => {
      throw new DOMException('denied', 'SecurityError');
    });
    const store = createStorage();
    store.set('user_like_gender', '0');
    expect(document.cookie).toContain('user_like_gender=0');
    expect(store.get('user_like_gender')).toBe('0');
    store.remove('user_like_gender');
    expect(store.get('user_like_gender')).toBeNull();
  });

  it('writes cookies that last 365 days and survive odd characters', () => {
    const writes: string[] = [];
    const fake = {
      get cookie() {
        return writes.map((w) => w.split(';')[0]).join('; ');
      },
      set cookie(value: string) {
        writes.push(value);
      },
    } as unknown as Document;
    const store = createCookieStorage(fake);
    store.set('utm_source', 'a b;c=d');
    expect(COOKIE_MAX_AGE_SECONDS).toBe(31_536_000);
    expect(writes[0]).toContain(`max-age=${COOKIE_MAX_AGE_SECONDS}`);
    expect(store.get('utm_source')).toBe('a b;c=d');
  });

  it('keeps the names browsers already hold values under', () => {
    expect(Object.values(STORAGE_KEYS).sort()).toEqual([
      'appVoucher',
      'countdownDeadline',
      'createCharacterData',
      'createCharacterDataCommon',
      'createCharacterDataGuy',
      'distinctId',
      'eighteenTipShow',
      'interestedGender',
      'language',
      'localNSFW',
      'paySuccessTime',
      'secretKey',
      'user_like_gender',
      'utm_medium',
      'utm_source',
    ]);
  });
});
