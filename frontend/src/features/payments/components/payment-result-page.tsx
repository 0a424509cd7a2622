import { useAtomValue } from 'jotai';
import { useEffect, useRef, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useParams, useSearchParams } from 'react-router';
import { languageAtom, userInfoAtom, vipDataAtom } from '@/app/store';
import { Button, buttonClassName } from '@/components/button';
import { CheckCircleIcon, ErrorIcon, InfoIcon } from '@/components/icons';
import { LocalizedLink } from '@/components/localized-link';
import { Logo } from '@/components/logo';
import { Spinner } from '@/components/splash';
import styles from '@/features/payments/components/payments.module.css';
import { SignInRequired } from '@/features/payments/components/sign-in-required';
import { useAccountGate } from '@/features/payments/hooks/use-account-gate';
import { usePaymentResult } from '@/features/payments/hooks/use-payment-result';
import { planNameOf } from '@/features/payments/lib/products';
import type { PaymentResultView } from '@/features/payments/stores/payment-result';
import { useLocalizedPath } from '@/hooks/use-localized-path';
import { usePageMeta } from '@/hooks/use-page-meta';
import { loadVipData } from '@/lib/catalogue';
import { formatMoney } from '@/lib/money';
import { payPathFor, ROUTES } from '@/lib/routes';
import { displayCoins } from '@/lib/site';
import { STORAGE_KEYS, storage } from '@/lib/storage';
import { trackPageView } from '@/lib/telemetry';
import { refreshUserInfo } from '@/lib/user';

function Outcome({
  tone,
  title,
  children,
  phase,
}: {
  tone: 'good' | 'wait' | 'bad';
  title: string;
  children: ReactNode;
  phase: string;
}) {
  const Icon = tone === 'good' ? CheckCircleIcon : tone === 'bad' ? ErrorIcon : InfoIcon;
  return (
    <section
      className={`${styles.card} ${styles.centered} ${styles.outcome}`}
      data-testid="payment-result"
      data-phase={phase}
    >
      <span className={`${styles.outcomeIcon} ${styles[tone]}`}>
        <Icon size={30} />
      </span>
      <h2 className={styles.cardTitle}>{title}</h2>
      {children}
    </section>
  );
}

/** What the user does next after an order that did not go through: the same checkout again. */
function RetryLink({ productId }: { productId: string | null }) {
  const { t } = useTranslation('payments');
  return (
    <div className={styles.actions}>
      <LocalizedLink
        to={productId ? payPathFor(productId) : ROUTES.pricing}
        className={buttonClassName({})}
        data-testid="payment-retry"
      >
        {t('result.retry')}
      </LocalizedLink>
    </div>
  );
}

function ResultBody({ view, onCheckAgain }: { view: PaymentResultView; onCheckAgain: () => void }) {
  const { t } = useTranslation('payments');
  const language = useAtomValue(languageAtom);
  const user = useAtomValue(userInfoAtom);
  const catalogue = useAtomValue(vipDataAtom);
  switch (view.phase) {
    case 'checking':
      return (
        <Outcome tone="wait" title={t('result.checking')} phase="checking">
          <Spinner label={t('result.checking')} />
        </Outcome>
      );
    case 'paid': {
      const plan = planNameOf(t, view.productId);
      const pack = catalogue?.coinPackages.find((p) => p.productId === view.productId);
      return (
        <Outcome tone="good" title={t('result.paidTitle')} phase="paid">
          <p className={styles.muted} data-testid="payment-result-text">
            {plan
              ? t('result.paidPlan', { plan })
              : pack
                ? t('result.paidCoins', { tokens: displayCoins(pack.coins) })
                : null}
          </p>
          {view.payment && (
            <p className={styles.faint}>
              {t('result.amount', { price: formatMoney(view.payment.amount, view.payment.currency, language) })}
            </p>
          )}
          {user && user.userVipType > 0 && (
            <p className={styles.balanceLine} data-testid="payment-result-balance">
              {t('result.balance', { tokens: displayCoins(user.coin) })}
            </p>
          )}
          <div className={styles.actions}>
            <LocalizedLink to={ROUTES.chat} className={buttonClassName({})} data-testid="start-chatting">
              {t('result.startChatting')}
            </LocalizedLink>
            <LocalizedLink
              to={plan ? ROUTES.subscriptionManage : ROUTES.buyTokens}
              className={buttonClassName({ variant: 'secondary' })}
            >
              {plan ? t('subscriptions.heading') : t('subscriptions.buyTokens')}
            </LocalizedLink>
          </div>
        </Outcome>
      );
    }
    case 'pending':
      return (
        <Outcome tone="wait" title={t('result.pendingTitle')} phase="pending">
          <p className={styles.muted}>{view.stopped ? t('result.stoppedText') : t('result.pendingText')}</p>
          {view.crypto && (
            <p className={styles.faint} data-testid="payment-result-crypto">
              {t('result.pendingCrypto')}
            </p>
          )}
          {view.stopped ? (
            <Button variant="secondary" onClick={onCheckAgain} data-testid="payment-check-again">
              {t('result.checkAgain')}
            </Button>
          ) : (
            <Spinner label={t('result.pendingTitle')} />
          )}
        </Outcome>
      );
    case 'failed':
      return (
        <Outcome
          tone="bad"
          title={view.reason === 'expired' ? t('result.expiredTitle') : t('result.failedTitle')}
          phase={view.reason}
        >
          <p className={styles.muted}>{view.reason === 'expired' ? t('result.expiredText') : t('result.failedText')}</p>
          <RetryLink productId={view.productId} />
        </Outcome>
      );
    case 'cancelled':
      return (
        <Outcome tone="bad" title={t('result.cancelledTitle')} phase="cancelled">
          <p className={styles.muted}>{t('result.cancelledText')}</p>
          <RetryLink productId={view.productId} />
        </Outcome>
      );
    case 'refunded':
      return (
        <Outcome tone="wait" title={t('result.refundedTitle')} phase="refunded">
          <p className={styles.muted}>{t('result.refundedText')}</p>
        </Outcome>
      );
    case 'unknownOrder':
      return (
        <Outcome tone="bad" title={t('result.unknownTitle')} phase="unknownOrder">
          <p className={styles.muted}>{t('result.unknownText')}</p>
          <RetryLink productId={null} />
        </Outcome>
      );
    case 'unreachable':
      return (
        <Outcome tone="bad" title={t('result.unreachable')} phase="unreachable">
          <Button variant="secondary" onClick={onCheckAgain} data-testid="payment-check-again">
            {t('result.checkAgain')}
          </Button>
        </Outcome>
      );
  }
}

/** Follows the order once the user is known to be signed in. */
function FollowOrder({ orderId, cancelled }: { orderId: string; cancelled: boolean }) {
  const { t } = useTranslation('payments');
  const { view, checkAgain } = usePaymentResult(orderId, cancelled);
  const recorded = useRef(false);
  // The catalogue names what a coin package added (the buyer may arrive from the processor).
  useEffect(() => void loadVipData(), []);
  useEffect(() => {
    if (view.phase !== 'paid' || recorded.current) return;
    recorded.current = true;
    // Spec section 3's "payment success timestamp"; and the new plan and balance now, even
    // if this tab's socket missed the tokenCount that announced them.
    storage.set(STORAGE_KEYS.paymentSuccessTime, String(Date.now()));
    void refreshUserInfo();
  }, [view.phase]);
  return (
    <>
      <ResultBody view={view} onCheckAgain={checkAgain} />
      <p className={`${styles.faint} ${styles.orderRef}`}>{t('result.order', { orderId })}</p>
    </>
  );
}

/**
 * `/paymentResults/{orderId}` (spec section 2): where processors return the buyer. It
 * follows the order until it is final (polls and the socket's `paymentResult`), then shows
 * success with the new plan or balance, a failure or expiry with a retry, or, while the
 * processor has not confirmed, that it is pending; `?cancelled=1` says the buyer gave up.
 */
export default function PaymentResultPage() {
  const { t: tApp } = useTranslation();
  const { resultId = '' } = useParams();
  const [params] = useSearchParams();
  const cancelled = params.get('cancelled') === '1';
  const localize = useLocalizedPath();
  const gate = useAccountGate();

  usePageMeta({
    title: tApp('seo.paymentResults.title'),
    description: tApp('seo.paymentResults.description'),
    keywords: tApp('seo.paymentResults.keywords'),
    noIndex: true,
    breadcrumbs: [
      { name: tApp('seo.breadcrumbHome'), path: localize(ROUTES.home) },
      { name: tApp('seo.paymentResults.title'), path: localize(`/paymentResults/${encodeURIComponent(resultId)}`) },
    ],
  });
  useEffect(() => trackPageView('paymentResults'), []);

  return (
    <main className={`${styles.page} ${styles.narrowPage} ${styles.standalone}`} data-testid="payment-result-page">
      <div className={styles.standaloneLogo}>
        <Logo asHeading={false} label={tApp('header.home')} />
      </div>
      {gate === 'checking' ? (
        <Spinner label={tApp('common.loading')} />
      ) : gate === 'signedOut' ? (
        <SignInRequired />
      ) : (
        <FollowOrder key={`${resultId}:${cancelled}`} orderId={resultId} cancelled={cancelled} />
      )}
    </main>
  );
}
