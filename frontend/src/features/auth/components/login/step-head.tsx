import type { ReactNode } from 'react';
import styles from '@/features/auth/components/login/login-modal.module.css';

/** A step's title and the line under it. */
export function StepHead({ title, subtitle }: { title: string; subtitle?: ReactNode }) {
  return (
    <div className={styles.head}>
      <h2 className={styles.title}>{title}</h2>
      {subtitle && <p className={styles.subtitle}>{subtitle}</p>}
    </div>
  );
}
