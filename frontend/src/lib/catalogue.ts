/**
 * What a user can buy (docs/api.md "Payments", `getVipData`): the plans `month_1`,
 * `quarter_1`, `year_1`, the coin packages `coin_1` … `coin_6` and the payment routes this
 * deployment has configured. Shared because the header's balance popover offers the short
 * list of packages as well as the payment screens. Prices are decimal strings (lib/money.ts).
 */
import { atom } from 'jotai';
import { apiPost } from '@/lib/api-client';
import { isDecimalAmount } from '@/lib/money';
import { store } from '@/lib/store';

export const PLAN_IDS = ['month_1', 'quarter_1', 'year_1'] as const;
export type PlanId = (typeof PLAN_IDS)[number];
export const COIN_PACKAGE_IDS = ['coin_1', 'coin_2', 'coin_3', 'coin_4', 'coin_5', 'coin_6'] as const;
export type CoinPackageId = (typeof COIN_PACKAGE_IDS)[number];
export type ProductId = PlanId | CoinPackageId;
/** The spec's short list (section 9), where all six do not fit: the balance popover, phones. */
export const SHORT_LIST_PACKAGE_IDS: readonly CoinPackageId[] = ['coin_1', 'coin_3', 'coin_5'];

export const PAYMENT_ROUTE_NAMES = ['sandbox', 'paypal', 'nowpayments', 'zpay', 'aiglo', 'trust', 'luxfin'] as const;
export type PaymentRouteName = (typeof PAYMENT_ROUTE_NAMES)[number];

export interface Plan {
  productId: PlanId;
  price: string;
  originalPrice: string;
  currency: string;
  /** Coins credited each period, integer units (shown ÷ 10). */
  coinsPerPeriod: number;
  /** Percent off the first period (70 = 70% off). */
  firstSubscriptionDiscount: number;
  periodMonths: number;
  /** The price per month, a decimal string; null when the server did not say. */
  perMonth: string | null;
}

export interface CoinPackage {
  productId: CoinPackageId;
  /** Integer units, shown ÷ 10. */
  coins: number;
  price: string;
  currency: string;
  /** The package with the most coins per unit of money. */
  bestValue: boolean;
}

export interface PaymentRoute {
  route: PaymentRouteName;
  /** The call that opens a checkout on this route: `POST /user/v1/pay/<endpoint>`. */
  endpoint: string;
  /** The sandbox: a test payment in which no money moves. */
  test: boolean;
}

export interface VipData {
  plans: Plan[];
  coinPackages: CoinPackage[];
  /** In the order the checkout offers them. */
  paymentRoutes: PaymentRoute[];
}

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
        perMonth: isDecimalAmount(p.perMonth) ? p.perMonth : null,
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

/** The last catalogue read this session (prices change rarely; screens refresh it on mount). */
export const vipDataAtom = atom<VipData | null>(null);

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
