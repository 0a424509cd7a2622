import { useAtomValue } from 'jotai';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { languageAtom } from '@/app/store';
import { FaqList } from '@/components/faq-list';
import { FlameIcon } from '@/components/icons';
import { LocalizedLink } from '@/components/localized-link';
import { PromoCountdown } from '@/components/promo-countdown';
import { Spinner } from '@/components/splash';
import { PaymentMethods } from '@/features/payments/components/payment-methods';
import styles from '@/features/payments/components/payments.module.css';
import { PlanCard } from '@/features/payments/components/plan-card';
import { LoadFailed } from '@/features/payments/components/sign-in-required';
import { useAccountGate } from '@/features/payments/hooks/use-account-gate';
import { useVipData } from '@/features/payments/hooks/use-vip-data';
import { useCountdown } from '@/hooks/use-countdown';
import { useLocalizedPath } from '@/hooks/use-localized-path';
import { usePageMeta } from '@/hooks/use-page-meta';
import { useRequireLogin } from '@/hooks/use-require-login';
import { bestFirstDiscount } from '@/lib/catalogue';
import { ROUTES } from '@/lib/routes';
import { trackPageView } from '@/lib/telemetry';

const FAQ_KEYS = ['cancel', 'tokens', 'discount', 'billing', 'refund'] as const;

/**
 * `/pricing` (spec section 2): the three plans with their prices and discounts, the promo
 * countdown of the home banner, the ways to pay and a short FAQ. Signed-out visitors see
 * the plans behind the login prompt; choosing one asks them to sign in again.
 */
export default function PricingPage() {
  const { t } = useTranslation('payments');
  const { t: tApp } = useTranslation();
  const language = useAtomValue(languageAtom);
  const localize = useLocalizedPath();
  const gate = useAccountGate();
  const requireLogin = useRequireLogin();
  const { load, reload } = useVipData();
  const remaining = useCountdown(gate === 'signedOut' || gate === 'free');

  usePageMeta({
    title: tApp('seo.pricing.title'),
    description: tApp('seo.pricing.description'),
    keywords: tApp('seo.pricing.keywords'),
    breadcrumbs: [
      { name: tApp('seo.breadcrumbHome'), path: localize(ROUTES.home) },
      { name: tApp('nav.upgrade'), path: localize(ROUTES.pricing) },
    ],
  });
  useEffect(() => trackPageView('pricing'), []);

  const plans = load.state === 'ready' ? load.data.plans : [];
  const discount = bestFirstDiscount(plans);
  // The plan with the largest discount is drawn as the recommended one.
  const featured =
    discount > 0 ? plans.find((plan) => plan.firstSubscriptionDiscount === discount)?.productId : undefined;

  return (
    <div className={styles.page} data-testid="pricing-page">
      <header className={styles.hero}>
        {discount > 0 && (
          <span className={styles.heroBadge} data-testid="pricing-discount">
            <FlameIcon size={16} />
            {t('pricing.discountBadge', { percent: discount })}
          </span>
        )}
        <h1 className={styles.heading}>{t('pricing.heading')}</h1>
        <p className={styles.intro}>{t('pricing.intro')}</p>
        {remaining && discount > 0 && (
          <div className={styles.offer}>
            <span className={styles.muted}>{t('pricing.offerEnds')}</span>
            <PromoCountdown remaining={remaining} testId="pricing-countdown" />
          </div>
        )}
      </header>

      {gate === 'paid' && (
        <div className={styles.notice} data-testid="pricing-have-plan">
          <span>{t('pricing.havePlan')}</span>
          <span className={styles.noticeLinks}>
            <LocalizedLink to={ROUTES.subscriptionManage} className={styles.link}>
              {t('pricing.manage')}
            </LocalizedLink>
            <LocalizedLink to={ROUTES.buyTokens} className={styles.link}>
              {t('pricing.buyTokens')}
            </LocalizedLink>
          </span>
        </div>
      )}

      {gate === 'free' && (
        <p className={`${styles.faint} ${styles.centerText}`} data-testid="pricing-buy-tokens">
          {t('pricing.tokensOnly')}{' '}
          <LocalizedLink to={ROUTES.buyTokens} className={styles.link}>
            {t('pricing.tokensOnlyLink')}
          </LocalizedLink>
        </p>
      )}

      {load.state === 'loading' && <Spinner label={tApp('common.loading')} />}
      {load.state === 'failed' && <LoadFailed onRetry={reload} />}
      {load.state === 'ready' && (
        <>
          <div className={styles.plans}>
            {plans.map((plan) => (
              <PlanCard
                key={plan.productId}
                plan={plan}
                language={language}
                featured={plan.productId === featured}
                onChoose={requireLogin}
              />
            ))}
          </div>
          <PaymentMethods routes={load.data.paymentRoutes} />
        </>
      )}

      <FaqList
        title={t('pricing.faqTitle')}
        testId="pricing-faq"
        items={FAQ_KEYS.map((key) => ({
          key,
          title: t(`pricing.faq.${key}.title`),
          content: t(`pricing.faq.${key}.content`),
        }))}
      />
      <p className={`${styles.faint} ${styles.legalLinks}`}>
        <LocalizedLink to={ROUTES.termsOfService}>{t('links.terms')}</LocalizedLink>
        <LocalizedLink to={ROUTES.refundPolicy}>{t('links.refund')}</LocalizedLink>
        <LocalizedLink to={ROUTES.payDisclaimer}>{t('links.disclaimer')}</LocalizedLink>
      </p>
    </div>
  );
}
