import { act } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { encryptText } from '@/lib/envelope-crypto';
import { notificationsAtom } from '@/lib/notifications';
import { pageNavigation } from '@/lib/page-navigation';
import { STORAGE_KEYS, storage } from '@/lib/storage';
import { store } from '@/lib/store';
import { logout } from '@/lib/user';

function answer(code: number, msg = '') {
  const fetchMock = vi.fn(async (_url: string, init: RequestInit) => {
    const key = (init.headers as Record<string, string>).secretKey!;
    const plain = JSON.stringify({ code, msg, success: code === 200, data: code === 200 ? true : null });
    return new Response(JSON.stringify({ responseData: await encryptText(key, plain) }), { status: 200 });
  });
  vi.stubGlobal('fetch', fetchMock);
  return fetchMock;
}

const shown = () => store.get(notificationsAtom).map((n) => [n.kind, n.message]);

beforeEach(() => {
  vi.spyOn(pageNavigation, 'assign').mockImplementation(() => undefined);
  storage.set(STORAGE_KEYS.appVoucher, 'app-voucher');
  storage.set(STORAGE_KEYS.distinctId, 'someone');
});

afterEach(() => {
  vi.unstubAllGlobals();
  act(() => store.set(notificationsAtom, []));
});

describe('logout', () => {
  it('signs out, forgets the app voucher and the analytics id, and reloads the home page', async () => {
    const fetchMock = answer(200);
    await logout();
    expect(fetchMock.mock.calls[0]?.[0]).toBe('/lust/api/login/v1/signOut');
    expect(fetchMock.mock.calls[0]?.[1].method).toBe('GET');
    expect(storage.get(STORAGE_KEYS.appVoucher)).toBeNull();
    expect(storage.get(STORAGE_KEYS.distinctId)).toBeNull();
    expect(pageNavigation.assign).toHaveBeenCalledWith('/');
  });

  it("shows the server's message when signing out fails, and stays", async () => {
    answer(50000, 'the store is down');
    await logout();
    expect(shown()).toEqual([['error', 'the store is down']]);
    expect(pageNavigation.assign).not.toHaveBeenCalled();
    expect(storage.get(STORAGE_KEYS.appVoucher)).toBe('app-voucher');
  });

  it('shows the generic message when the server cannot be reached', async () => {
    vi.stubGlobal('fetch', vi.fn(async () => Promise.reject(new TypeError('offline'))));
    await logout();
    expect(shown()).toEqual([['error', 'Something went wrong. Please try again later.']]);
    expect(pageNavigation.assign).not.toHaveBeenCalled();
  });
});
