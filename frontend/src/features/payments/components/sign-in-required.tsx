import { useSetAtom } from 'jotai';
import { useTranslation } from 'react-i18next';
import { showLoginTipAtom } from '@/app/store';
import { Button } from '@/components/button';
import { CrownIcon } from '@/components/icons';
import styles from '@/features/payments/components/payments.module.css';

/** What a payment screen shows a signed-out visitor behind the login prompt. */
export function SignInRequired() {
  const { t } = useTranslation('payments');
  const openLogin = useSetAtom(showLoginTipAtom);
  return (
    <section className={`${styles.card} ${styles.centered}`} data-testid="payments-signed-out">
      <span className={styles.bigIcon}>
        <CrownIcon size={28} />
      </span>
      <h2 className={styles.cardTitle}>{t('signIn.title')}</h2>
      <p className={styles.muted}>{t('signIn.text')}</p>
      <Button onClick={() => openLogin(true)}>{t('signIn.button')}</Button>
    </section>
  );
}

/** The catalogue could not be read: say so, with a retry. */
export function LoadFailed({ onRetry }: { onRetry: () => void }) {
  const { t } = useTranslation('payments');
  return (
    <section className={`${styles.card} ${styles.centered}`} data-testid="payments-load-failed">
      <p className={styles.muted}>{t('loadFailed')}</p>
      <Button variant="secondary" size="small" onClick={onRetry}>
        {t('retry')}
      </Button>
    </section>
  );
}
