import { useAtomValue } from 'jotai';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { languageAtom } from '@/app/store';
import { Button, buttonClassName } from '@/components/button';
import { CrownIcon } from '@/components/icons';
import { LocalizedLink } from '@/components/localized-link';
import { Modal } from '@/components/modal';
import { Spinner } from '@/components/splash';
import { getUserSubscriptionList, unSubscription, type Subscription } from '@/features/payments/api/payments-api';
import styles from '@/features/payments/components/payments.module.css';
import { SignInRequired } from '@/features/payments/components/sign-in-required';
import { useAccountGate } from '@/features/payments/hooks/use-account-gate';
import { formatDay, planNameOf } from '@/features/payments/lib/products';
import { useLoad } from '@/hooks/use-load';
import { useLocalizedPath } from '@/hooks/use-localized-path';
import { usePageMeta } from '@/hooks/use-page-meta';
import { ApiCode } from '@/lib/api-types';
import { notify } from '@/lib/notifications';
import { ROUTES } from '@/lib/routes';
import { trackPageView } from '@/lib/telemetry';

type Load = { state: 'loading' } | { state: 'failed' } | { state: 'ready'; list: Subscription[] };

/** "Renews on …", "Ends on …" or "Ended on …": what happens at the end of the period. */
export function periodEndText(
  t: (key: string, options?: object) => string,
  subscription: Subscription,
  day: string,
): string {
  if (subscription.state === 'ended') return t('subscriptions.endedOn', { date: day });
  if (subscription.renews && subscription.state !== 'cancelled') return t('subscriptions.renewsOn', { date: day });
  return t('subscriptions.endsOn', { date: day });
}

/** The user may stop a subscription that would renew. */
export function canCancel(subscription: Subscription): boolean {
  return subscription.renews && (subscription.state === 'active' || subscription.state === 'pending');
}

function SubscriptionCard({ subscription, onCancel }: { subscription: Subscription; onCancel: () => void }) {
  const { t } = useTranslation('payments');
  const language = useAtomValue(languageAtom);
  const say = t as unknown as (key: string, options?: object) => string;
  const end = formatDay(subscription.currentPeriodEnd, language);
  return (
    <article
      className={styles.card}
      data-testid="subscription"
      data-subscription-id={subscription.subscriptionId}
      data-state={subscription.state}
    >
      <header className={styles.subscriptionHead}>
        <span className={styles.summaryIcon}>
          <CrownIcon size={22} />
        </span>
        <h2 className={styles.cardTitle}>{planNameOf(t, subscription.productId) ?? subscription.productId}</h2>
        <span
          className={`${styles.stateBadge} ${styles[`state_${subscription.state}`] ?? ''}`}
          data-testid="subscription-state"
        >
          {t(`subscriptions.states.${subscription.state}`)}
        </span>
      </header>
      <dl className={styles.facts}>
        <div>
          <dt>{t('subscriptions.started')}</dt>
          <dd>{formatDay(subscription.startedAt, language)}</dd>
        </div>
        <div>
          <dt>{t('subscriptions.periodEnd')}</dt>
          <dd>{end}</dd>
        </div>
        <div>
          <dt>{t('subscriptions.via')}</dt>
          <dd>{t(`routes.${subscription.route}`)}</dd>
        </div>
      </dl>
      <p className={styles.periodEnd} data-testid="subscription-period-end">
        {periodEndText(say, subscription, end)}
      </p>
      {canCancel(subscription) && (
        <Button variant="secondary" size="small" onClick={onCancel} data-testid="cancel-subscription">
          {t('subscriptions.cancel')}
        </Button>
      )}
    </article>
  );
}

/**
 * `/subscriptionmanage` (spec section 2): the user's subscriptions, newest first, with
 * their state, start, current period end and what happens then; a renewing one can be
 * cancelled behind a confirmation. Cancelling stops renewal only: the plan and its tokens
 * stay until the period ends.
 */
export default function SubscriptionManagePage() {
  const { t } = useTranslation('payments');
  const { t: tApp } = useTranslation();
  const language = useAtomValue(languageAtom);
  const localize = useLocalizedPath();
  const gate = useAccountGate();
  const [confirming, setConfirming] = useState<Subscription | null>(null);
  const [cancelling, setCancelling] = useState(false);

  usePageMeta({
    title: tApp('seo.subscriptionManage.title'),
    description: tApp('seo.subscriptionManage.description'),
    keywords: tApp('seo.subscriptionManage.keywords'),
    noIndex: true,
    breadcrumbs: [
      { name: tApp('seo.breadcrumbHome'), path: localize(ROUTES.home) },
      { name: t('subscriptions.heading'), path: localize(ROUTES.subscriptionManage) },
    ],
  });
  useEffect(() => trackPageView('subscriptionManage'), []);

  const signedIn = gate === 'free' || gate === 'paid';
  // Asked again after a cancellation; what is shown stays until the new list arrives.
  const subscriptions = useLoad(
    (): Promise<Load> =>
      getUserSubscriptionList().then(
        (envelope) =>
          envelope.success && Array.isArray(envelope.data)
            ? { state: 'ready', list: envelope.data }
            : { state: 'failed' },
        () => ({ state: 'failed' }),
      ),
    [],
    { enabled: signedIn, keepData: true },
  );
  const load: Load = subscriptions.data ?? { state: 'loading' };
  const fetchList = subscriptions.reload;

  const confirmCancel = async () => {
    if (!confirming || cancelling) return;
    setCancelling(true);
    const target = confirming;
    try {
      const envelope = await unSubscription(target.subscriptionId);
      if (envelope.success) {
        // Shown at once as the server will list it: not renewing, in force until the period end.
        subscriptions.setData((current) =>
          current?.state === 'ready'
            ? {
                state: 'ready',
                list: current.list.map((s) =>
                  s.subscriptionId === target.subscriptionId ? { ...s, renews: false, state: 'cancelled' } : s,
                ),
              }
            : current,
        );
        notify.success(t('subscriptions.cancelled', { date: formatDay(target.currentPeriodEnd, language) }));
        setConfirming(null);
        fetchList();
      } else {
        notify.warning(
          envelope.code === ApiCode.paramError ? t('subscriptions.notRenewing') : t('subscriptions.notFound'),
        );
        setConfirming(null);
        fetchList();
      }
    } catch {
      // The client said it could not reach the server; the dialog stays for another try.
    }
    setCancelling(false);
  };

  let content;
  if (gate === 'checking') content = <Spinner label={tApp('common.loading')} />;
  else if (gate === 'signedOut') content = <SignInRequired />;
  else if (load.state === 'loading') content = <Spinner label={tApp('common.loading')} />;
  else if (load.state === 'failed')
    content = (
      <section className={`${styles.card} ${styles.centered}`}>
        <p className={styles.muted}>{t('subscriptions.loadFailed')}</p>
        <Button variant="secondary" size="small" onClick={() => void fetchList()}>
          {t('retry')}
        </Button>
      </section>
    );
  else if (load.list.length === 0)
    content = (
      <section className={`${styles.card} ${styles.centered}`} data-testid="subscriptions-empty">
        <p className={styles.muted}>{t('subscriptions.empty')}</p>
        <LocalizedLink to={ROUTES.pricing} className={buttonClassName({ size: 'small' })}>
          {t('subscriptions.seePlans')}
        </LocalizedLink>
      </section>
    );
  else
    content = (
      <div className={styles.subscriptions} data-testid="subscriptions">
        {load.list.map((subscription) => (
          <SubscriptionCard
            key={subscription.subscriptionId}
            subscription={subscription}
            onCancel={() => setConfirming(subscription)}
          />
        ))}
      </div>
    );

  return (
    <div className={`${styles.page} ${styles.narrowPage}`} data-testid="subscription-manage-page">
      <h1 className={styles.heading}>{t('subscriptions.heading')}</h1>
      {content}
      {(gate === 'paid' || gate === 'free') && (
        <p className={styles.faint}>
          {gate === 'paid' && (
            <>
              <LocalizedLink to={ROUTES.buyTokens} className={styles.link}>
                {t('subscriptions.buyTokens')}
              </LocalizedLink>
              {' · '}
            </>
          )}
          <LocalizedLink to={ROUTES.orders} className={styles.link} data-testid="subscriptions-orders">
            {t('orders.heading')}
          </LocalizedLink>
        </p>
      )}
      <Modal
        open={confirming !== null}
        onClose={() => !cancelling && setConfirming(null)}
        title={t('subscriptions.confirmTitle')}
        closeLabel={tApp('common.close')}
        width={440}
        testId="cancel-subscription-dialog"
      >
        {confirming && (
          <div className={styles.dialog}>
            <h2 className={styles.cardTitle}>{t('subscriptions.confirmTitle')}</h2>
            <p className={styles.muted}>
              {t('subscriptions.confirmText', { date: formatDay(confirming.currentPeriodEnd, language) })}
            </p>
            <div className={styles.dialogActions}>
              <Button variant="ghost" onClick={() => setConfirming(null)} disabled={cancelling}>
                {t('subscriptions.keep')}
              </Button>
              <Button
                onClick={() => void confirmCancel()}
                disabled={cancelling}
                data-testid="confirm-cancel-subscription"
              >
                {t('subscriptions.confirm')}
              </Button>
            </div>
          </div>
        )}
      </Modal>
    </div>
  );
}
