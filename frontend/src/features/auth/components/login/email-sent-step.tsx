import { Trans, useTranslation } from 'react-i18next';
import { Button } from '@/components/button';
import { MailIcon } from '@/components/icons';
import styles from '@/features/auth/components/login/login-modal.module.css';
import { StepHead } from '@/features/auth/components/login/step-head';
import { pageNavigation } from '@/lib/page-navigation';

/** Step 3: the sign-in link was mailed to `email`; done reloads the page. */
export function EmailSentStep({ email }: { email: string }) {
  const { t } = useTranslation();
  return (
    <div className={styles.form} data-testid="login-sent">
      <span className={styles.sent}>
        <MailIcon size={30} />
      </span>
      <StepHead
        title={t('login.checkEmailTitle')}
        subtitle={
          <Trans
            i18nKey="login.checkEmailText"
            values={{ email: email.trim() }}
            components={{ address: <strong className={styles.address} data-testid="login-sent-address" /> }}
          />
        }
      />
      <p className={styles.hint}>{t('login.checkEmailHint')}</p>
      <Button variant="secondary" block onClick={() => pageNavigation.reload()} data-testid="login-sent-done">
        {t('login.checkEmailDone')}
      </Button>
    </div>
  );
}
