/**
 * A fake Amora server for component tests: it decrypts each request's envelope, answers by
 * endpoint path (a list answers call by call, the last one repeating) and records every
 * decrypted payload. `hold` keeps a path's answers waiting until released.
 */
import { vi } from 'vitest';
import { decryptText, encryptText } from '@/lib/envelope-crypto';

export type FakeReply = { code: number; data?: unknown; msg?: string } | 'network-error';

export interface FakeCall {
  path: string;
  payload: unknown;
}

export function serveApi(routes: Record<string, FakeReply | FakeReply[]>) {
  const calls: FakeCall[] = [];
  const counters: Record<string, number> = {};
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init: RequestInit) => {
      const path = url.replace('/lust/api', '').split('?')[0]!;
      const key = (init.headers as Record<string, string>).secretKey!;
      const payload = init.body
        ? JSON.parse(await decryptText(key, JSON.parse(init.body as string).requestData))
        : null;
      calls.push({ path, payload });
      const route = routes[path] ?? { code: 200, data: true };
      const list = Array.isArray(route) ? route : [route];
      const n = (counters[path] = (counters[path] ?? 0) + 1);
      const reply = list[Math.min(n - 1, list.length - 1)]!;
      if (reply === 'network-error') throw new TypeError('Failed to fetch');
      const { code, data = null, msg = '' } = reply;
      const plain = JSON.stringify({ code, msg, success: code === 200, data });
      return new Response(JSON.stringify({ responseData: await encryptText(key, plain) }), { status: 200 });
    }),
  );
  return calls;
}

/** A catalogue as docs/api.md describes getVipData, with the default prices of config/default.toml. */
export const VIP_DATA = {
  plans: [
    {
      productId: 'month_1',
      price: '12.99',
      originalPrice: '19.99',
      currency: 'USD',
      coinsPerPeriod: 1000,
      firstSubscriptionDiscount: 50,
      periodMonths: 1,
      perMonth: '12.99',
    },
    {
      productId: 'quarter_1',
      price: '29.99',
      originalPrice: '59.97',
      currency: 'USD',
      coinsPerPeriod: 3300,
      firstSubscriptionDiscount: 60,
      periodMonths: 3,
      perMonth: '10.00',
    },
    {
      productId: 'year_1',
      price: '71.99',
      originalPrice: '239.88',
      currency: 'USD',
      coinsPerPeriod: 15000,
      firstSubscriptionDiscount: 70,
      periodMonths: 12,
      perMonth: '6.00',
    },
  ],
  coinPackages: [
    { productId: 'coin_1', coins: 1000, price: '9.99', currency: 'USD', bestValue: false },
    { productId: 'coin_2', coins: 2200, price: '19.99', currency: 'USD', bestValue: false },
    { productId: 'coin_3', coins: 5800, price: '49.99', currency: 'USD', bestValue: false },
    { productId: 'coin_4', coins: 12000, price: '99.99', currency: 'USD', bestValue: false },
    { productId: 'coin_5', coins: 25000, price: '199.99', currency: 'USD', bestValue: false },
    { productId: 'coin_6', coins: 65000, price: '499.99', currency: 'USD', bestValue: true },
  ],
  paymentRoutes: [
    { route: 'sandbox', endpoint: 'sandboxCreateOrder', test: true },
    { route: 'paypal', endpoint: 'paypalCreateOrder', test: false },
    { route: 'nowpayments', endpoint: 'nowPaymentsInvoice', test: false },
  ],
};
