import { describe, expect, it } from 'vitest';
import { currentDeadline, nextDeadline, renewDeadline, splitRemaining } from '@/lib/countdown';
import { createCookieStorage, STORAGE_KEYS, type KeyValueStorage } from '@/lib/storage';

function memoryStorage(): KeyValueStorage & { data: Map<string, string> } {
  const data = new Map<string, string>();
  return {
    data,
    get: (key) => data.get(key) ?? null,
    set: (key, value) => void data.set(key, value),
    remove: (key) => void data.delete(key),
  };
}

const at = (iso: string) => Date.parse(iso);

describe('promo deadline (spec sections 4 and 9)', () => {
  it('is the start of the UTC day two days ahead', () => {
    expect(nextDeadline(at('2024-10-20T00:00:00Z'))).toBe(at('2024-10-22T00:00:00Z'));
    expect(nextDeadline(at('2024-10-20T23:59:59Z'))).toBe(at('2024-10-22T00:00:00Z'));
    expect(nextDeadline(at('2024-12-30T12:00:00Z'))).toBe(at('2025-01-01T00:00:00Z'));
    expect(nextDeadline(at('2024-02-28T08:00:00Z'))).toBe(at('2024-03-01T00:00:00Z'));
  });

  it('is created and stored when missing', () => {
    const store = memoryStorage();
    const deadline = currentDeadline(at('2024-10-20T10:00:00Z'), store);
    expect(deadline).toBe(at('2024-10-22T00:00:00Z'));
    expect(store.data.get(STORAGE_KEYS.countdownDeadline)).toBe(String(deadline));
  });

  it('keeps a stored deadline that is still ahead', () => {
    const store = memoryStorage();
    store.set(STORAGE_KEYS.countdownDeadline, String(at('2024-10-21T00:00:00Z')));
    expect(currentDeadline(at('2024-10-20T10:00:00Z'), store)).toBe(at('2024-10-21T00:00:00Z'));
  });

  it('replaces a stored deadline that has passed, or garbage', () => {
    const store = memoryStorage();
    store.set(STORAGE_KEYS.countdownDeadline, String(at('2024-10-20T00:00:00Z')));
    expect(currentDeadline(at('2024-10-20T10:00:00Z'), store)).toBe(at('2024-10-22T00:00:00Z'));
    store.set(STORAGE_KEYS.countdownDeadline, 'not a number');
    expect(currentDeadline(at('2024-10-20T10:00:00Z'), store)).toBe(at('2024-10-22T00:00:00Z'));
  });

  it('is renewed when the countdown ends', () => {
    const store = memoryStorage();
    const end = at('2024-10-22T00:00:00Z');
    store.set(STORAGE_KEYS.countdownDeadline, String(end));
    expect(renewDeadline(end, store)).toBe(at('2024-10-24T00:00:00Z'));
    expect(store.data.get(STORAGE_KEYS.countdownDeadline)).toBe(String(at('2024-10-24T00:00:00Z')));
  });

  it('works on the cookie fallback too', () => {
    const store = createCookieStorage();
    const deadline = currentDeadline(at('2024-10-20T10:00:00Z'), store);
    expect(store.get(STORAGE_KEYS.countdownDeadline)).toBe(String(deadline));
    store.remove(STORAGE_KEYS.countdownDeadline);
  });
});

describe('remaining time in hr, min and sec', () => {
  it('splits whole hours beyond a day', () => {
    expect(splitRemaining((47 * 3600 + 5 * 60 + 9) * 1000 + 999)).toEqual({ hours: 47, minutes: 5, seconds: 9 });
  });

  it('never goes negative', () => {
    expect(splitRemaining(-5000)).toEqual({ hours: 0, minutes: 0, seconds: 0 });
  });
});
