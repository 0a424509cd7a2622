import { useAtomValue } from 'jotai';
import { useTranslation } from 'react-i18next';
import { userInfoAtom } from '@/app/store';
import { buttonClassName } from '@/components/button';
import { CrownIcon } from '@/components/icons';
import { LocalizedLink } from '@/components/localized-link';
import styles from '@/features/settings/components/settings-page.module.css';
import { ROUTES } from '@/lib/routes';
import { displayCoins } from '@/lib/site';

/**
 * The account's plan: free users are offered the plans; members see their balance and the
 * ways to manage the subscription and buy tokens; everyone, their order history. Follows the user atom, so a payment in
 * another tab shows here at once.
 */
export function PlanSection() {
  const { t } = useTranslation();
  const user = useAtomValue(userInfoAtom);
  if (!user) return null;
  const paid = user.userVipType > 0;
  return (
    <section className={styles.card} aria-labelledby="settings-plan" data-testid="settings-plan">
      <h2 id="settings-plan" className={styles.cardTitle}>
        <CrownIcon size={20} />
        {t('settings.planTitle')}
      </h2>
      <div className={`${styles.row} ${styles.rowWrap}`}>
        <div className={styles.rowText}>
          <span className={styles.rowLabel}>{paid ? t('settings.planMember') : t('settings.planFree')}</span>
          <span className={styles.muted}>
            {paid ? t('settings.planBalance', { tokens: displayCoins(user.coin) }) : t('settings.planFreeText')}
          </span>
        </div>
        {paid ? (
          <span className={styles.planLinks}>
            <LocalizedLink
              to={ROUTES.subscriptionManage}
              className={buttonClassName({ variant: 'secondary', size: 'small' })}
              data-testid="settings-manage-plan"
            >
              {t('settings.planManage')}
            </LocalizedLink>
            <LocalizedLink to={ROUTES.buyTokens} className={buttonClassName({ size: 'small' })}>
              {t('nav.buyTokens')}
            </LocalizedLink>
          </span>
        ) : (
          <LocalizedLink
            to={ROUTES.pricing}
            className={buttonClassName({ size: 'small' })}
            data-testid="settings-upgrade"
          >
            {t('nav.upgrade')}
          </LocalizedLink>
        )}
      </div>
      <p className={styles.muted}>
        <LocalizedLink to={ROUTES.orders} className={styles.textLink} data-testid="settings-orders">
          {t('settings.planOrders')}
        </LocalizedLink>
      </p>
    </section>
  );
}
