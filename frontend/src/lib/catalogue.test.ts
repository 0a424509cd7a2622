import { describe, expect, it } from 'vitest';
import { bestFirstDiscount, readVipData, SHORT_LIST_PACKAGE_IDS } from '@/lib/catalogue';
import { needPayPathFor } from '@/lib/routes';
import { VIP_DATA } from '@/test/fake-api';

describe('readVipData', () => {
  it('reads the plans, packages and routes of getVipData in the server’s order', () => {
    const data = readVipData(VIP_DATA);
    expect(data.plans.map((p) => p.productId)).toEqual(['month_1', 'quarter_1', 'year_1']);
    expect(data.plans[2]).toMatchObject({
      price: '71.99',
      originalPrice: '239.88',
      perMonth: '6.00',
      periodMonths: 12,
    });
    expect(data.coinPackages.map((c) => c.productId)).toEqual([
      'coin_1',
      'coin_2',
      'coin_3',
      'coin_4',
      'coin_5',
      'coin_6',
    ]);
    expect(data.coinPackages.filter((c) => c.bestValue).map((c) => c.productId)).toEqual(['coin_6']);
    expect(data.paymentRoutes.map((r) => [r.route, r.endpoint, r.test])).toEqual([
      ['sandbox', 'sandboxCreateOrder', true],
      ['paypal', 'paypalCreateOrder', false],
      ['nowpayments', 'nowPaymentsInvoice', false],
    ]);
  });

  it('drops what is not a product, has no decimal price, or names an unknown route or a path as endpoint', () => {
    const data = readVipData({
      plans: [
        { productId: 'month_2', price: '1.00' },
        { productId: 'month_1', price: 12.99 },
        { productId: 'year_1', price: '71.99' },
      ],
      coinPackages: [
        { productId: 'coin_7', coins: 1, price: '1.00' },
        { productId: 'coin_1', coins: 1000, price: '9.99' },
      ],
      paymentRoutes: [
        { route: 'bank', endpoint: 'bankCreateOrder' },
        { route: 'paypal', endpoint: '../admin/credit' },
        { route: 'zpay', endpoint: 'zPayCreateOrder', test: false },
      ],
    });
    expect(data.plans.map((p) => p.productId)).toEqual(['year_1']);
    // An original price or per-month figure the server did not send: the price, and none.
    expect(data.plans[0]).toMatchObject({ originalPrice: '71.99', perMonth: '', currency: 'USD' });
    expect(data.coinPackages.map((c) => c.productId)).toEqual(['coin_1']);
    expect(data.paymentRoutes.map((r) => r.route)).toEqual(['zpay']);
  });

  it('reads a server without routes (before payments are configured) as no way to pay', () => {
    expect(readVipData({ plans: [], coinPackages: [] }).paymentRoutes).toEqual([]);
    expect(readVipData(null)).toEqual({ plans: [], coinPackages: [], paymentRoutes: [] });
  });

  it('takes "Up to N% OFF" from the largest first-subscription discount', () => {
    expect(bestFirstDiscount(readVipData(VIP_DATA).plans)).toBe(70);
    expect(bestFirstDiscount([])).toBe(0);
  });

  it('names the spec’s short list of packages', () => {
    expect(SHORT_LIST_PACKAGE_IDS).toEqual(['coin_1', 'coin_3', 'coin_5']);
  });
});

describe('needPayPathFor', () => {
  it('sends free and signed-out visitors to the plans and paid users to tokens', () => {
    expect(needPayPathFor(0)).toBe('/pricing');
    expect(needPayPathFor(undefined)).toBe('/pricing');
    expect(needPayPathFor(1)).toBe('/buytokens');
    expect(needPayPathFor(3)).toBe('/buytokens');
  });
});
