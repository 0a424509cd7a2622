import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { languageAtom, needPayOfferAtom, notificationsAtom, showLoginTipAtom, store } from '@/app/store';
import {
  apiGet,
  apiPost,
  buildHeaders,
  captureLandingParameters,
  getSecretKey,
  resetBlockedPageForTests,
} from '@/lib/api-client';
import { ApiCode } from '@/lib/api-types';
import { decryptText, encryptText } from '@/lib/envelope-crypto';
import { STORAGE_KEYS } from '@/lib/storage';

interface Recorded {
  url: string;
  method: string;
  headers: Record<string, string>;
  payload: unknown;
}

/** A fake server speaking API.md 1.1: it decrypts the request and encrypts its answer. */
function serve(answer: (request: Recorded) => { code: number; msg?: string; data?: unknown }) {
  const calls: Recorded[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init: RequestInit) => {
      const headers = init.headers as Record<string, string>;
      const body = init.body ? (JSON.parse(init.body as string) as { requestData: string }) : null;
      const payload = body ? JSON.parse(await decryptText(headers.secretKey!, body.requestData)) : null;
      const request = { url, method: init.method ?? 'GET', headers, payload };
      calls.push(request);
      const { code, msg = code === 200 ? 'success' : 'failure', data = null } = answer(request);
      const envelope = JSON.stringify({ code, msg, success: code === 200, data });
      return new Response(JSON.stringify({ responseData: await encryptText(headers.secretKey!, envelope) }), {
        status: 200,
        headers: { 'content-type': 'application/json' },
      });
    }),
  );
  return calls;
}

const messages = () => store.get(notificationsAtom).map((n) => `${n.kind}: ${n.message}`);

beforeEach(() => {
  store.set(notificationsAtom, []);
  store.set(showLoginTipAtom, false);
  store.set(languageAtom, 'en');
});

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('secret key', () => {
  it('is generated once and kept in storage', () => {
    const key = getSecretKey();
    expect(key).toMatch(/^[A-Za-z0-9]{32}$/);
    expect(window.localStorage.getItem(STORAGE_KEYS.secretKey)).toBe(key);
    expect(getSecretKey()).toBe(key);
  });
});

describe('request headers (API.md 1.2)', () => {
  it('carries every header the contract names', () => {
    store.set(languageAtom, 'de');
    captureLandingParameters('?via=partner&appVoucher=v-123&nsfw=1', '/privacyPolicyForApp');
    const headers = buildHeaders();
    expect(headers).toMatchObject({
      'Content-Type': 'application/json',
      secretKey: getSecretKey(),
      platformType: 'web',
      appVersion: '0.0.101',
      language: 'de',
      utm_source: 'partner',
      utm_medium: 'partner',
      nsfw: '1',
      voucher: 'v-123',
    });
    expect(['mobile', 'pc']).toContain(headers.client);
    expect(headers.system).toBeTruthy();
    expect(headers.timeZone).toBe(String(-new Date().getTimezoneOffset()));
    expect(headers.browserLanguage).toBe(navigator.language);
    expect(headers.distinctId).toMatch(/^[0-9a-f]{32}$/);
  });

  it('takes ?appVoucher= only on the pages the app embeds (login CSRF, issue 28)', () => {
    captureLandingParameters('?appVoucher=attacker', '/');
    captureLandingParameters('?appVoucher=attacker', '/chat/gf-001');
    captureLandingParameters('?appVoucher=attacker', '/de/pay');
    expect(buildHeaders().voucher).toBeUndefined();
    expect(window.localStorage.getItem(STORAGE_KEYS.appVoucher)).toBeNull();

    captureLandingParameters('?appVoucher=app-1', '/de/communityGuidelinesForApp');
    expect(buildHeaders().voucher).toBe('app-1');
  });

  it('never lets ?appVoucher= replace the voucher this browser holds', () => {
    captureLandingParameters('?appVoucher=mine', '/privacyPolicyForApp');
    captureLandingParameters('?appVoucher=attacker', '/privacyPolicyForApp');
    expect(buildHeaders().voucher).toBe('mine');
  });

  it('sends nsfw 0 after sfw=1 and no voucher when none is known', () => {
    captureLandingParameters('?sfw=1');
    const headers = buildHeaders();
    expect(headers.nsfw).toBe('0');
    expect(headers.voucher).toBeUndefined();
  });
});

describe('the envelope', () => {
  it('encrypts a POST payload into requestData and decrypts the answer', async () => {
    const calls = serve(() => ({ code: 200, data: [{ characterId: 'c1' }] }));
    const envelope = await apiPost<{ characterId: string }[]>('/user/v1/character/getCharacterList', {
      pageNo: 1,
      pageSize: 30,
      gender: 0,
    });
    expect(envelope).toEqual({ code: 200, msg: 'success', success: true, data: [{ characterId: 'c1' }] });
    expect(calls[0]).toMatchObject({
      url: '/lust/api/user/v1/character/getCharacterList',
      method: 'POST',
      payload: { pageNo: 1, pageSize: 30, gender: 0 },
    });
  });

  it('puts GET parameters in the query string, unencrypted', async () => {
    const calls = serve(() => ({ code: 200, data: true }));
    await apiGet('/spm', { location: 'https://x/', time: 5, skipped: undefined });
    expect(calls[0]!.url).toBe('/lust/api/spm?location=https%3A%2F%2Fx%2F&time=5');
    expect(calls[0]!.payload).toBeNull();
  });
});

describe('code handling (spec section 8)', () => {
  it('opens the login prompt on tokenInvalid, without a notification', async () => {
    serve(() => ({ code: ApiCode.tokenInvalid }));
    const envelope = await apiPost('/user/v1/getVipData');
    expect(envelope.success).toBe(false);
    expect(store.get(showLoginTipAtom)).toBe(true);
    expect(messages()).toEqual([]);
  });

  it('warns with the server message on cannotPurchasePlan', async () => {
    serve(() => ({ code: ApiCode.cannotPurchasePlan, msg: 'You already have this plan' }));
    await apiPost('/user/v1/pay/paypalCreateOrder', { productId: 'month_1' });
    expect(messages()).toEqual(['warning: You already have this plan']);
  });

  it('offers the plans or tokens on needPay instead of an error', async () => {
    store.set(needPayOfferAtom, false);
    serve(() => ({ code: ApiCode.needPay, msg: 'not enough tokens' }));
    await apiPost('/user/v1/somethingPaid');
    expect(store.get(needPayOfferAtom)).toBe(true);
    expect(messages()).toEqual([]);
    store.set(needPayOfferAtom, false);
  });

  it('shows the generic error for any other failure code', async () => {
    serve(() => ({ code: ApiCode.serverError, msg: 'internal' }));
    await apiPost('/user/v1/getVipData');
    expect(messages()).toEqual(['error: Something went wrong. Please try again later.']);
  });

  it('leaves codes the caller handles to the caller', async () => {
    serve(() => ({ code: ApiCode.accountPwdError }));
    const envelope = await apiPost('/login/v1/userPasswordLogin', {}, { handledCodes: [ApiCode.accountPwdError] });
    expect(envelope.code).toBe(ApiCode.accountPwdError);
    expect(messages()).toEqual([]);
  });

  it("shows 'Failed to connect to the server!' on an HTTP failure and runs the custom handler", async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => new Response('oops', { status: 502 })),
    );
    const onHttpError = vi.fn();
    await expect(apiPost('/user/v1/getVipData', {}, { onHttpError })).rejects.toThrow('HTTP 502');
    expect(messages()).toEqual(['error: Failed to connect to the server!']);
    expect(onHttpError).toHaveBeenCalledOnce();
  });

  it('treats a network error like an HTTP failure', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => Promise.reject(new TypeError('Failed to fetch'))),
    );
    await expect(apiGet('/user/v1/getUserInfo')).rejects.toThrow('Failed to fetch');
    expect(messages()).toEqual(['error: Failed to connect to the server!']);
  });

  it('replaces the page with a firewall 403 HTML body, once only', async () => {
    resetBlockedPageForTests();
    const write = vi.spyOn(document, 'write').mockImplementation(() => undefined);
    vi.spyOn(document, 'open').mockImplementation(() => document as never);
    vi.spyOn(document, 'close').mockImplementation(() => undefined);
    const html = '<html><body><h1>you have been blocked!</h1></body></html>';
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => new Response(html, { status: 403, headers: { 'content-type': 'text/html' } })),
    );
    await expect(apiPost('/user/v1/getVipData')).rejects.toThrow();
    await expect(apiPost('/user/v1/getVipData')).rejects.toThrow();
    expect(write).toHaveBeenCalledTimes(1);
    expect(write).toHaveBeenCalledWith(html);
    expect(messages()).toEqual([]);
  });

  it('says nothing at all for quiet calls', async () => {
    serve(() => ({ code: ApiCode.tokenInvalid }));
    await apiGet('/spm', {}, { quiet: true });
    expect(store.get(showLoginTipAtom)).toBe(false);
    expect(messages()).toEqual([]);
  });
});

describe('notifications', () => {
  it('disappear after 3 seconds', async () => {
    vi.useFakeTimers();
    try {
      serve(() => ({ code: ApiCode.serverError }));
      await apiPost('/user/v1/getVipData');
      expect(messages()).toHaveLength(1);
      vi.advanceTimersByTime(2999);
      expect(messages()).toHaveLength(1);
      vi.advanceTimersByTime(1);
      expect(messages()).toHaveLength(0);
    } finally {
      vi.useRealTimers();
    }
  });
});
