import { act } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { gettingUserAtom, notificationsAtom, showLoginTipAtom, store, userInfoAtom } from '@/app/store';
import { encryptText } from '@/lib/envelope-crypto';
import { pageNavigation } from '@/lib/page-navigation';
import { STORAGE_KEYS, storage } from '@/lib/storage';
import type { UserInfo } from '@/lib/api-types';
import { logout, refreshUserInfo } from '@/lib/user';

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
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => Promise.reject(new TypeError('offline'))),
    );
    await logout();
    expect(shown()).toEqual([['error', 'Something went wrong. Please try again later.']]);
    expect(pageNavigation.assign).not.toHaveBeenCalled();
  });
});

describe('refreshUserInfo', () => {
  function serveUsers(coins: number[]) {
    let served = 0;
    const release: (() => void)[] = [];
    const fetchMock = vi.fn(async (_url: string, init: RequestInit) => {
      const key = (init.headers as Record<string, string>).secretKey!;
      const coin = coins[served++]!;
      // Each answer waits until the test lets it go, so calls overlap.
      await new Promise<void>((resolve) => release.push(resolve));
      const data = { userId: 'u1', userNo: '1', userName: 'Sam', userVipType: 1, coin };
      const plain = JSON.stringify({ code: 200, msg: 'success', success: true, data });
      return new Response(JSON.stringify({ responseData: await encryptText(key, plain) }), { status: 200 });
    });
    vi.stubGlobal('fetch', fetchMock);
    return { fetchMock, release };
  }

  afterEach(() => store.set(userInfoAtom, null));

  it('runs one more round for calls made while one runs, so the newest answer wins', async () => {
    const { fetchMock, release } = serveUsers([100, 500]);
    store.set(gettingUserAtom, false);
    const first = refreshUserInfo();
    const second = refreshUserInfo();
    const third = refreshUserInfo();
    await vi.waitFor(() => expect(release).toHaveLength(1));
    release[0]!();
    await vi.waitFor(() => expect(release).toHaveLength(2));
    expect(store.get(userInfoAtom)?.coin).toBe(100);
    release[1]!();
    await Promise.all([first, second, third]);
    expect(fetchMock).toHaveBeenCalledTimes(2);
    expect(store.get(userInfoAtom)?.coin).toBe(500);
    // No loading state: the header must not blink on every balance change.
    expect(store.get(gettingUserAtom)).toBe(false);
  });

  it('keeps the user when the server cannot be reached, quietly', async () => {
    store.set(userInfoAtom, { userId: 'u1', coin: 7 } as UserInfo);
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => Promise.reject(new TypeError('offline'))),
    );
    await refreshUserInfo();
    expect(store.get(userInfoAtom)?.coin).toBe(7);
    expect(shown()).toEqual([]);
  });

  it('signs the visitor out when the session is gone', async () => {
    store.set(userInfoAtom, { userId: 'u1', coin: 7 } as UserInfo);
    answer(10004);
    await refreshUserInfo();
    expect(store.get(userInfoAtom)).toBeNull();
    expect(store.get(showLoginTipAtom)).toBe(false);
  });
});
