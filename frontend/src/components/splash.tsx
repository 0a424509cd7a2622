import { LogoMark } from '@/components/logo-mark';
import styles from '@/components/splash.module.css';

/** Full-screen placeholder while translations load; it has no text to translate. */
export function Splash() {
  return (
    <div className={styles.splash} aria-busy="true">
      <div className={styles.pulse}>
        <LogoMark size={56} />
      </div>
    </div>
  );
}

export function Spinner({ label }: { label: string }) {
  return (
    <div className={styles.inline} role="status" aria-label={label}>
      <span className={styles.spinner} />
    </div>
  );
}
