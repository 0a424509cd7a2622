/**
 * Products and routes as the payment screens name them: which catalogue entry a product id
 * is, its name in the reader's language, and the days the subscription screen shows.
 */
import type { TFunction } from 'i18next';
import { isCoinPackageId, isPlanId, type CoinPackage, type Plan, type VipData } from '@/lib/catalogue';
import { displayCoins } from '@/lib/site';

export type Product = { kind: 'plan'; plan: Plan } | { kind: 'coins'; pack: CoinPackage };

/** The catalogue entry of `productId`, or null when the catalogue has no such product. */
export function findProduct(data: VipData, productId: string | undefined): Product | null {
  if (isPlanId(productId)) {
    const plan = data.plans.find((p) => p.productId === productId);
    return plan ? { kind: 'plan', plan } : null;
  }
  if (isCoinPackageId(productId)) {
    const pack = data.coinPackages.find((c) => c.productId === productId);
    return pack ? { kind: 'coins', pack } : null;
  }
  return null;
}

type PaymentsT = TFunction<'payments'>;

/** "3 months", "580 tokens": a product's name (coins shown ÷ 10). */
export function productName(t: PaymentsT, product: Product): string {
  return product.kind === 'plan'
    ? t(`products.${product.plan.productId}`)
    : t('products.coins', { tokens: displayCoins(product.pack.coins) });
}

/** A plan's name from its id alone (results and subscriptions may not have the catalogue). */
export function planNameOf(t: PaymentsT, productId: string): string | null {
  return isPlanId(productId) ? t(`products.${productId}`) : null;
}

/** `1 700 000 000` (seconds) as the reader's language writes a day. */
export function formatDay(seconds: number, language: string): string {
  return new Intl.DateTimeFormat(language, { year: 'numeric', month: 'long', day: 'numeric' }).format(
    new Date(seconds * 1000),
  );
}
