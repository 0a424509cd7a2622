/**
 * What a user can buy (docs/api.md "Payments", `getVipData`): the plans `month_1`,
 * `quarter_1`, `year_1`, the coin packages `coin_1` … `coin_6` and the payment routes this
 * deployment has configured. Shared because the header's balance popover offers the short
 * list of packages as well as the payment screens. Prices are decimal strings (lib/money.ts).
 */
import { store, vipDataAtom } from '@/app/store';
import { apiPost } from '@/lib/api-client';
import { isDecimalAmount } from '@/lib/money';
import {
  COIN_PACKAGE_IDS,
  PAYMENT_ROUTE_NAMES,
  PLAN_IDS,
  type CoinPackage,
  type CoinPackageId,
  type PaymentRoute,
  type PaymentRouteName,
  type Plan,
  type PlanId,
  type VipData,
} from '@/lib/api-types';

export { COIN_PACKAGE_IDS, PAYMENT_ROUTE_NAMES, PLAN_IDS } from '@/lib/api-types';
export type {
  CoinPackage,
  CoinPackageId,
  PaymentRoute,
  PaymentRouteName,
  Plan,
  PlanId,
  ProductId,
  VipData,
} from '@/lib/api-types';

/** The spec's short list (section 9), where all six do not fit: the balance popover, phones. */
export const SHORT_LIST_PACKAGE_IDS: readonly CoinPackageId[] = ['coin_1', 'coin_3', 'coin_5'];

export function isPlanId(value: string | undefined): value is PlanId {
  return (PLAN_IDS as readonly string[]).includes(value ?? '');
}

export function isCoinPackageId(value: string | undefined): value is CoinPackageId {
  return (COIN_PACKAGE_IDS as readonly string[]).includes(value ?? '');
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;
const count = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : 0);
const text = (value: unknown, fallback = '') => (typeof value === 'string' ? value : fallback);

/**
 * Reads the server's answer into the shapes above, in the server's order, dropping entries
 * that are not products of spec section 9, carry no decimal price, or name a route or an
 * endpoint the client does not know (an endpoint becomes part of a request path).
 */
export function readVipData(raw: unknown): VipData {
  const data = isRecord(raw) ? raw : {};
  const plans: Plan[] = (Array.isArray(data.plans) ? data.plans : []).filter(isRecord).flatMap((p) => {
    const productId = text(p.productId);
    if (!isPlanId(productId) || !isDecimalAmount(p.price)) return [];
    return [
      {
        productId,
        price: p.price,
        originalPrice: isDecimalAmount(p.originalPrice) ? p.originalPrice : p.price,
        currency: text(p.currency, 'USD'),
        coinsPerPeriod: count(p.coinsPerPeriod),
        firstSubscriptionDiscount: count(p.firstSubscriptionDiscount),
        periodMonths: count(p.periodMonths),
        perMonth: isDecimalAmount(p.perMonth) ? p.perMonth : '',
      },
    ];
  });
  const coinPackages: CoinPackage[] = (Array.isArray(data.coinPackages) ? data.coinPackages : [])
    .filter(isRecord)
    .flatMap((c) => {
      const productId = text(c.productId);
      if (!isCoinPackageId(productId) || !isDecimalAmount(c.price)) return [];
      return [
        {
          productId,
          coins: count(c.coins),
          price: c.price,
          currency: text(c.currency, 'USD'),
          bestValue: c.bestValue === true,
        },
      ];
    });
  const paymentRoutes: PaymentRoute[] = (Array.isArray(data.paymentRoutes) ? data.paymentRoutes : [])
    .filter(isRecord)
    .flatMap((r) => {
      const route = text(r.route) as PaymentRouteName;
      const endpoint = text(r.endpoint);
      if (!PAYMENT_ROUTE_NAMES.includes(route) || !/^[A-Za-z]{1,40}$/.test(endpoint)) return [];
      return [{ route, endpoint, test: r.test === true }];
    });
  return { plans, coinPackages, paymentRoutes };
}

/** POST getVipData {}: the catalogue and the configured routes. */
export async function fetchVipData(): Promise<VipData | null> {
  const envelope = await apiPost<unknown>('/user/v1/getVipData', {});
  return envelope.success ? readVipData(envelope.data) : null;
}

let loading: Promise<VipData | null> | null = null;

/** Reads the catalogue (one request at a time) and keeps it in vipDataAtom; null on failure. */
export function loadVipData(): Promise<VipData | null> {
  loading ??= fetchVipData()
    .then((data) => {
      if (data) store.set(vipDataAtom, data);
      return data;
    })
    .catch(() => null)
    .finally(() => {
      loading = null;
    });
  return loading;
}

/** The largest first-subscription discount of the plans: the "Up to 70% OFF" figure. */
export function bestFirstDiscount(plans: readonly Plan[]): number {
  return plans.reduce((best, plan) => Math.max(best, plan.firstSubscriptionDiscount), 0);
}
