import { useAtomValue } from 'jotai';
import { useTranslation } from 'react-i18next';
import { buttonClassName } from '@/components/button';
import { FlameIcon } from '@/components/icons';
import { LocalizedLink } from '@/components/localized-link';
import styles from '@/features/home/components/promo-banner.module.css';
import { useCountdown } from '@/features/home/hooks/use-countdown';
import { useRequireLogin } from '@/hooks/use-require-login';
import { ROUTES } from '@/lib/routes';
import { isPaidUserAtom, userInfoFetchedAtom } from '@/lib/user';

const pad = (n: number) => String(n).padStart(2, '0');

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
  const units = [
    { value: remaining.hours, label: t('home.hr') },
    { value: remaining.minutes, label: t('home.min') },
    { value: remaining.seconds, label: t('home.sec') },
  ];
  return (
    <div className={styles.promo} data-testid="promo-banner">
      <span className={styles.icon}>
        <FlameIcon size={22} />
      </span>
      <div className={styles.text}>
        <div className={styles.title}>{t('home.promoTitle')}</div>
        <div className={styles.sub}>{t('home.promoText')}</div>
      </div>
      <div className={styles.clock} role="timer" aria-live="off" data-testid="promo-countdown">
        {units.map((unit, index) => (
          <span key={unit.label} style={{ display: 'contents' }}>
            {index > 0 && <span className={styles.colon}>:</span>}
            <span className={styles.unit}>
              <span className={styles.value}>{pad(unit.value)}</span>
              <span className={styles.label}>{unit.label}</span>
            </span>
          </span>
        ))}
      </div>
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
