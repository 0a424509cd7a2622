import { useAtomValue } from 'jotai';
import { useTranslation } from 'react-i18next';
import { isPaidUserAtom, userInfoFetchedAtom } from '@/app/store';
import { buttonClassName } from '@/components/button';
import { FlameIcon } from '@/components/icons';
import { LocalizedLink } from '@/components/localized-link';
import { PromoCountdown } from '@/components/promo-countdown';
import styles from '@/features/home/components/promo-banner.module.css';
import { useCountdown } from '@/hooks/use-countdown';
import { useRequireLogin } from '@/hooks/use-require-login';
import { ROUTES } from '@/lib/routes';

/**
 * 'First Subscription, Up to 70% OFF' with a countdown in hr, min and sec, for free and
 * signed-out visitors once user info has loaded (spec section 4).
 */
export function PromoBanner() {
  const { t } = useTranslation();
  const fetched = useAtomValue(userInfoFetchedAtom);
  const paid = useAtomValue(isPaidUserAtom);
  const requireLogin = useRequireLogin();
  const remaining = useCountdown(fetched && !paid);
  if (!remaining) return null;
  return (
    <div className={styles.promo} data-testid="promo-banner">
      <span className={styles.icon}>
        <FlameIcon size={22} />
      </span>
      <div className={styles.text}>
        <div className={styles.title}>{t('home.promoTitle')}</div>
        <div className={styles.sub}>{t('home.promoText')}</div>
      </div>
      <PromoCountdown remaining={remaining} className={styles.clock} />
      <LocalizedLink
        to={ROUTES.pricing}
        className={buttonClassName({ size: 'small' })}
        onClick={(event) => {
          if (!requireLogin()) event.preventDefault();
        }}
      >
        {t('home.promoCta')}
      </LocalizedLink>
    </div>
  );
}
