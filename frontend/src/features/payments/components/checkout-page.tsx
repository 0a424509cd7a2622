import { useAtomValue } from 'jotai';
import { lazy, Suspense, useEffect, useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { useParams } from 'react-router';
import { languageAtom } from '@/app/store';
import { Button, buttonClassName } from '@/components/button';
import { ArrowLeftIcon, CoinIcon, CrownIcon, WarningIcon } from '@/components/icons';
import { LocalizedLink } from '@/components/localized-link';
import { Spinner } from '@/components/splash';
import { createOrder, type CheckoutOrder } from '@/features/payments/api/payments-api';
import { RouteLabel } from '@/features/payments/components/payment-methods';
import styles from '@/features/payments/components/payments.module.css';
import { LoadFailed, SignInRequired } from '@/features/payments/components/sign-in-required';
import { useAccountGate } from '@/features/payments/hooks/use-account-gate';
import { useVipData } from '@/features/payments/hooks/use-vip-data';
import { findProduct, productName, type Product } from '@/features/payments/lib/products';
import { useLocalizedPath } from '@/hooks/use-localized-path';
import { usePageMeta } from '@/hooks/use-page-meta';
import { ApiCode } from '@/lib/api-types';
import type { PaymentRoute } from '@/lib/catalogue';
import { compareAmounts, formatMoney } from '@/lib/money';
import { pageNavigation } from '@/lib/page-navigation';
import { paymentResultPathFor, payPathFor, ROUTES, zpayPathFor } from '@/lib/routes';
import { trackClick, trackPageView } from '@/lib/telemetry';

// The QR encoder is only needed once a zPay order exists.
const QrCode = lazy(() => import('@/features/payments/components/qr-code').then((m) => ({ default: m.QrCode })));

/** Why an order could not be opened, as the page says it (the user stays on the page). */
type OrderProblem = { kind: 'routeOff' | 'providerDown' | 'badRequest' } | { kind: 'planInForce'; msg: string };

/** Only a web address (or a path of this site) is followed: never `javascript:` and the like. */
export function isNavigableUrl(url: string): boolean {
  if (url.startsWith('/') && !url.startsWith('//')) return true;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' || parsed.protocol === 'http:';
  } catch {
    return false;
  }
}

function problemOf(code: number, msg: string): OrderProblem {
  switch (code) {
    case ApiCode.notFound:
      return { kind: 'routeOff' };
    case ApiCode.cannotPurchasePlan:
      return { kind: 'planInForce', msg };
    case ApiCode.paramError:
      return { kind: 'badRequest' };
    default:
      return { kind: 'providerDown' };
  }
}

function ProblemNote({ problem }: { problem: OrderProblem }) {
  const { t } = useTranslation('payments');
  const text =
    problem.kind === 'routeOff'
      ? t('checkout.routeOff')
      : problem.kind === 'providerDown'
        ? t('checkout.providerDown')
        : problem.kind === 'badRequest'
          ? t('checkout.badRequest')
          : ('msg' in problem && problem.msg) || t('checkout.alreadyHavePlan');
  return (
    <div
      className={`${styles.problem} ${problem.kind === 'planInForce' ? styles.problemWarning : ''}`}
      role="alert"
      data-testid="checkout-problem"
      data-kind={problem.kind}
    >
      <WarningIcon size={18} />
      <span>{text}</span>
      {problem.kind === 'planInForce' && (
        <LocalizedLink to={ROUTES.subscriptionManage} className={styles.link}>
          {t('subscriptions.heading')}
        </LocalizedLink>
      )}
    </div>
  );
}

function Summary({ product, language }: { product: Product; language: string }) {
  const { t } = useTranslation('payments');
  const price = product.kind === 'plan' ? product.plan.price : product.pack.price;
  const currency = product.kind === 'plan' ? product.plan.currency : product.pack.currency;
  const money = (amount: string) => formatMoney(amount, currency, language);
  const Icon = product.kind === 'plan' ? CrownIcon : CoinIcon;
  return (
    <section className={styles.summary} data-testid="checkout-summary">
      <h2 className={styles.sectionTitle}>{t('checkout.summary')}</h2>
      <div className={styles.summaryRow}>
        <span className={styles.summaryIcon}>
          <Icon size={22} />
        </span>
        <span className={styles.summaryName}>
          <strong data-testid="checkout-product">
            {product.kind === 'plan' ? t('checkout.plan', { name: productName(t, product) }) : productName(t, product)}
          </strong>
          <span className={styles.faint}>
            {product.kind === 'plan'
              ? t('checkout.renews', { every: t(`every.${product.plan.productId}`) })
              : t('checkout.oneTime')}
          </span>
        </span>
      </div>
      <div className={styles.totalRow}>
        <span>{t('checkout.total')}</span>
        <span className={styles.total}>
          {product.kind === 'plan' && compareAmounts(product.plan.originalPrice, product.plan.price) > 0 && (
            <s className={styles.originalPrice}>{money(product.plan.originalPrice)}</s>
          )}
          <strong data-testid="checkout-total">{money(price)}</strong>
        </span>
      </div>
    </section>
  );
}

/** zPay's wallet QR code for an order that exists, with the ways on. */
function QrPanel({ order, price }: { order: CheckoutOrder; price: string }) {
  const { t } = useTranslation('payments');
  return (
    <section className={styles.qrPanel} data-testid="zpay-qr">
      <h2 className={styles.sectionTitle}>{t('checkout.qrTitle')}</h2>
      <p className={styles.muted}>{t('checkout.qrText', { price })}</p>
      <div className={styles.qrFrame}>
        <Suspense fallback={<Spinner label={t('checkout.qrLabel')} />}>
          <QrCode value={order.qrPayload ?? order.approveUrl} label={t('checkout.qrLabel')} />
        </Suspense>
      </div>
      <div className={styles.actions}>
        <LocalizedLink to={paymentResultPathFor(order.orderId)} className={buttonClassName({})} data-testid="zpay-done">
          {t('checkout.qrDone')}
        </LocalizedLink>
        {isNavigableUrl(order.approveUrl) && (
          <a href={order.approveUrl} className={buttonClassName({ variant: 'ghost' })} rel="noopener noreferrer">
            {t('checkout.qrOpen')}
          </a>
        )}
      </div>
    </section>
  );
}

/**
 * `/pay/{productId}` and `/zpay/{productId}` (spec section 2): the checkout of one plan or
 * package. The summary, the way to pay among the configured routes (`/zpay/` only zPay,
 * with its wallet QR code), the terms and refund policy, and a pay button that opens the
 * order on that route (`POST pay/<endpoint>`) and sends the browser to `approveUrl`.
 */
export default function CheckoutPage({ zpay = false }: { zpay?: boolean }) {
  const { t } = useTranslation('payments');
  const { t: tApp } = useTranslation();
  const { productId = '' } = useParams();
  const language = useAtomValue(languageAtom);
  const localize = useLocalizedPath();
  const gate = useAccountGate();
  const { load, reload } = useVipData();
  const [chosen, setChosen] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<OrderProblem | null>(null);
  const [qrOrder, setQrOrder] = useState<CheckoutOrder | null>(null);

  usePageMeta({
    title: tApp('seo.pay.title'),
    description: tApp('seo.pay.description'),
    keywords: tApp('seo.pay.keywords'),
    noIndex: true,
    breadcrumbs: [
      { name: tApp('seo.breadcrumbHome'), path: localize(ROUTES.home) },
      { name: tApp('nav.upgrade'), path: localize(ROUTES.pricing) },
      { name: t('checkout.heading'), path: localize(zpay ? zpayPathFor(productId) : payPathFor(productId)) },
    ],
  });
  useEffect(() => trackPageView(zpay ? 'zpay' : 'pay'), [zpay]);

  const product = load.state === 'ready' ? findProduct(load.data, productId) : null;
  const backTo = product?.kind === 'coins' ? ROUTES.buyTokens : ROUTES.pricing;
  const routes: PaymentRoute[] =
    load.state === 'ready' ? load.data.paymentRoutes.filter((r) => !zpay || r.route === 'zpay') : [];
  const route = routes.find((r) => r.route === chosen) ?? routes[0] ?? null;
  const hasZpay = load.state === 'ready' && load.data.paymentRoutes.some((r) => r.route === 'zpay');

  const pay = async () => {
    if (!route || !product || busy) return;
    setBusy(true);
    setProblem(null);
    trackClick('pay', { productId, route: route.route });
    try {
      const envelope = await createOrder(route, productId);
      if (envelope.success && envelope.data) {
        const order = envelope.data;
        if (zpay) {
          setQrOrder(order);
          setBusy(false);
          return;
        }
        if (isNavigableUrl(order.approveUrl)) {
          // Busy stays on: the browser is leaving for the payment page.
          pageNavigation.assign(order.approveUrl);
          return;
        }
        setProblem({ kind: 'providerDown' });
      } else {
        setProblem(problemOf(envelope.code, envelope.msg));
      }
    } catch {
      // The client has said it could not reach the server; the user stays to try again.
    }
    setBusy(false);
  };

  let content;
  if (gate === 'checking' || (gate !== 'signedOut' && load.state === 'loading'))
    content = <Spinner label={tApp('common.loading')} />;
  else if (gate === 'signedOut') content = <SignInRequired />;
  else if (load.state === 'failed') content = <LoadFailed onRetry={reload} />;
  else if (!product) {
    content = (
      <section className={`${styles.card} ${styles.centered}`} data-testid="checkout-unknown-product">
        <p className={styles.muted}>{t('checkout.unknownProduct')}</p>
        <LocalizedLink to={ROUTES.pricing} className={buttonClassName({ size: 'small' })}>
          {t('checkout.seePlans')}
        </LocalizedLink>
      </section>
    );
  } else {
    const currency = product.kind === 'plan' ? product.plan.currency : product.pack.currency;
    const price = formatMoney(product.kind === 'plan' ? product.plan.price : product.pack.price, currency, language);
    content = (
      <div className={styles.checkout}>
        <Summary product={product} language={language} />
        {qrOrder ? (
          <QrPanel order={qrOrder} price={price} />
        ) : (
          <section className={styles.card} data-testid="checkout-methods">
            <h2 className={styles.sectionTitle}>{zpay ? t('checkout.qrTitle') : t('checkout.method')}</h2>
            {routes.length === 0 ? (
              <p className={styles.muted} data-testid="checkout-no-routes">
                {zpay ? t('checkout.zpayOff') : t('pricing.noMethods')}
              </p>
            ) : (
              <div className={styles.routeChoices} role="radiogroup" aria-label={t('checkout.method')}>
                {routes.map((r) => (
                  <label
                    key={r.route}
                    className={`${styles.routeChoice} ${r === route ? styles.routeChosen : ''}`}
                    data-route={r.route}
                  >
                    <input
                      type="radio"
                      name="route"
                      value={r.route}
                      checked={r === route}
                      onChange={() => setChosen(r.route)}
                    />
                    <span className={styles.routeText}>
                      <RouteLabel route={r} />
                      <span className={styles.faint}>{t(`routeNotes.${r.route}`)}</span>
                    </span>
                  </label>
                ))}
              </div>
            )}
            {route?.test && (
              <p className={styles.testNote} data-testid="checkout-test-note">
                {t('checkout.testNote')}
              </p>
            )}
            {problem && <ProblemNote problem={problem} />}
            <p className={styles.faint}>
              <Trans
                t={t}
                i18nKey="checkout.agree"
                components={{
                  terms: <LocalizedLink to={ROUTES.termsOfService} className={styles.link} />,
                  refund: <LocalizedLink to={ROUTES.refundPolicy} className={styles.link} />,
                }}
              />
            </p>
            <Button block disabled={!route || busy} onClick={() => void pay()} data-testid="pay-button">
              {busy && !zpay
                ? t('checkout.redirecting')
                : zpay
                  ? t('checkout.qrStart')
                  : route?.test
                    ? t('checkout.payTest')
                    : t('checkout.pay', { price })}
            </Button>
            {!zpay && hasZpay && (
              <LocalizedLink to={zpayPathFor(productId)} className={styles.link}>
                {t('checkout.useQr')}
              </LocalizedLink>
            )}
            {zpay && (
              <LocalizedLink to={payPathFor(productId)} className={styles.link} data-testid="other-methods">
                {t('checkout.otherMethods')}
              </LocalizedLink>
            )}
          </section>
        )}
      </div>
    );
  }

  return (
    <div className={`${styles.page} ${styles.narrowPage}`} data-testid={zpay ? 'zpay-page' : 'checkout-page'}>
      <LocalizedLink to={backTo} className={styles.back}>
        <ArrowLeftIcon size={18} />
        {t('checkout.back')}
      </LocalizedLink>
      <h1 className={styles.heading}>{t('checkout.heading')}</h1>
      {content}
    </div>
  );
}
