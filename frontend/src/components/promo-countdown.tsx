import { useTranslation } from 'react-i18next';
import styles from '@/components/promo-countdown.module.css';
import type { Remaining } from '@/lib/countdown';

const pad = (n: number) => String(n).padStart(2, '0');

/**
 * The first-subscription promo's clock in hr, min and sec (spec sections 2 and 4), as the
 * home banner and the plans page show it; `remaining` comes from useCountdown.
 */
export function PromoCountdown({
  remaining,
  testId = 'promo-countdown',
  className = '',
}: {
  remaining: Remaining;
  testId?: string;
  className?: string;
}) {
  const { t } = useTranslation();
  const units = [
    { value: remaining.hours, label: t('home.hr') },
    { value: remaining.minutes, label: t('home.min') },
    { value: remaining.seconds, label: t('home.sec') },
  ];
  return (
    <div className={`${styles.clock} ${className}`} role="timer" aria-live="off" data-testid={testId}>
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
  );
}
