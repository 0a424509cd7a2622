import { useAtomValue } from 'jotai';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { languageAtom } from '@/app/store';
import { Button, buttonClassName } from '@/components/button';
import { LocalizedLink } from '@/components/localized-link';
import { Spinner } from '@/components/splash';
import { getUserOrderList, type OrderEntry } from '@/features/payments/api/payments-api';
import styles from '@/features/payments/components/payments.module.css';
import { SignInRequired } from '@/features/payments/components/sign-in-required';
import { useAccountGate } from '@/features/payments/hooks/use-account-gate';
import { useVipData } from '@/features/payments/hooks/use-vip-data';
import { findProduct, formatDay, planNameOf, productName } from '@/features/payments/lib/products';
import { useLoad } from '@/hooks/use-load';
import { useLocalizedPath } from '@/hooks/use-localized-path';
import { usePageMeta } from '@/hooks/use-page-meta';
import { formatMoney, toMinorUnits } from '@/lib/money';
import { paymentResultPathFor, ROUTES } from '@/lib/routes';
import { trackPageView } from '@/lib/telemetry';

type Load = { state: 'loading' } | { state: 'failed' } | { state: 'ready'; list: OrderEntry[] };

/** Whether refunds or chargebacks gave any money of the order back. */
export function hasRefund(order: OrderEntry): boolean {
  try {
    return toMinorUnits(order.refunded) > 0n;
  } catch {
    return false;
  }
}

function OrderRow({ order, item }: { order: OrderEntry; item: string }) {
  const { t } = useTranslation('payments');
  const language = useAtomValue(languageAtom);
  return (
    <li className={styles.orderRow} data-testid="order" data-order-id={order.flowId} data-status={order.status}>
      <span className={styles.orderDate}>{formatDay(order.createdAt, language)}</span>
      <span className={styles.orderItem}>
        {order.final ? (
          item
        ) : (
          // An order still under way: its results page follows it.
          <LocalizedLink to={paymentResultPathFor(order.flowId)} className={styles.link}>
            {item}
          </LocalizedLink>
        )}
      </span>
      <span className={styles.orderAmount} data-testid="order-amount">
        {formatMoney(order.amount, order.currency, language)}
      </span>
      <span className={styles.orderRoute}>{t(`routes.${order.route}`)}</span>
      <span className={styles.orderState}>
        <span className={`${styles.stateBadge} ${styles[`order_${order.status}`] ?? ''}`} data-testid="order-status">
          {t(`orders.states.${order.status}`)}
        </span>
        {hasRefund(order) && (
          <span className={styles.orderRefund} data-testid="order-refund">
            {t('orders.refunded', { amount: formatMoney(order.refunded, order.currency, language) })}
          </span>
        )}
      </span>
    </li>
  );
}

/**
 * `/orders` (a project extension, issue 30): the user's orders and payments, newest first,
 * each with its day, what was bought, the amount, how it was paid, its state and what
 * refunds gave back. Reached from Buy Tokens, the subscriptions and the settings' plan.
 * A table on wide screens; on phones each order is a small card (payments.module.css).
 */
export default function OrderHistoryPage() {
  const { t } = useTranslation('payments');
  const { t: tApp } = useTranslation();
  const localize = useLocalizedPath();
  const gate = useAccountGate();
  const { load: catalogue } = useVipData();

  usePageMeta({
    title: tApp('seo.orders.title'),
    description: tApp('seo.orders.description'),
    keywords: tApp('seo.orders.keywords'),
    noIndex: true,
    breadcrumbs: [
      { name: tApp('seo.breadcrumbHome'), path: localize(ROUTES.home) },
      { name: t('orders.heading'), path: localize(ROUTES.orders) },
    ],
  });
  useEffect(() => trackPageView('orders'), []);

  const signedIn = gate === 'free' || gate === 'paid';
  const orders = useLoad(
    (): Promise<Load> =>
      getUserOrderList().then(
        (envelope) =>
          envelope.success && Array.isArray(envelope.data)
            ? { state: 'ready', list: envelope.data }
            : { state: 'failed' },
        () => ({ state: 'failed' }),
      ),
    [],
    { enabled: signedIn },
  );
  const load: Load = orders.data ?? { state: 'loading' };

  /** "580 tokens", "3 months"; a product the catalogue no longer has, by its id. */
  const itemOf = (order: OrderEntry): string => {
    const product = catalogue.state === 'ready' ? findProduct(catalogue.data, order.productId) : null;
    if (product) return productName(t, product);
    return planNameOf(t, order.productId) ?? t('orders.tokenPack', { id: order.productId });
  };

  let content;
  if (gate === 'checking') content = <Spinner label={tApp('common.loading')} />;
  else if (gate === 'signedOut') content = <SignInRequired />;
  else if (load.state === 'loading') content = <Spinner label={tApp('common.loading')} />;
  else if (load.state === 'failed')
    content = (
      <section className={`${styles.card} ${styles.centered}`}>
        <p className={styles.muted}>{t('orders.loadFailed')}</p>
        <Button variant="secondary" size="small" onClick={() => void orders.reload()}>
          {t('retry')}
        </Button>
      </section>
    );
  else if (load.list.length === 0)
    content = (
      <section className={`${styles.card} ${styles.centered}`} data-testid="orders-empty">
        <p className={styles.muted}>{t('orders.empty')}</p>
        <LocalizedLink to={ROUTES.buyTokens} className={buttonClassName({ size: 'small' })}>
          {t('orders.buyTokens')}
        </LocalizedLink>
      </section>
    );
  else
    content = (
      <section className={styles.card}>
        <ul className={styles.orders} data-testid="orders" aria-label={t('orders.heading')}>
          <li className={`${styles.orderRow} ${styles.orderHead}`} aria-hidden="true">
            <span>{t('orders.date')}</span>
            <span>{t('orders.item')}</span>
            <span>{t('orders.amount')}</span>
            <span>{t('orders.via')}</span>
            <span>{t('orders.state')}</span>
          </li>
          {load.list.map((order) => (
            <OrderRow key={order.flowId} order={order} item={itemOf(order)} />
          ))}
        </ul>
      </section>
    );

  return (
    <div className={`${styles.page} ${styles.narrowPage}`} data-testid="order-history-page">
      <h1 className={styles.heading}>{t('orders.heading')}</h1>
      <p className={styles.intro}>{t('orders.intro')}</p>
      {content}
      {signedIn && (
        <p className={`${styles.faint} ${styles.centerText}`}>
          <LocalizedLink to={ROUTES.subscriptionManage} className={styles.link}>
            {t('orders.subscriptions')}
          </LocalizedLink>
          {' · '}
          <LocalizedLink to={ROUTES.refundPolicy} className={styles.link}>
            {t('orders.refundPolicy')}
          </LocalizedLink>
        </p>
      )}
    </div>
  );
}
