import { useTranslation } from 'react-i18next';
import { Button } from '@/components/button';
import { WarningIcon } from '@/components/icons';
import styles from '@/components/render-error-screen.module.css';

/** Shown instead of the app after a runtime render error (spec sections 2 and 8). */
export function RenderErrorScreen() {
  const { t } = useTranslation(undefined, { useSuspense: false });
  return (
    <main className={styles.screen} role="alert">
      <div className={styles.badge}>
        <WarningIcon size={34} />
      </div>
      <p className={styles.message}>
        {t('errors.render', { defaultValue: 'Something went wrong. You can try updating your browser version.' })}
      </p>
      <Button onClick={() => window.location.reload()}>{t('errors.refresh', { defaultValue: 'Refresh' })}</Button>
    </main>
  );
}
