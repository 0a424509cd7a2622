import { useTranslation } from 'react-i18next';
import styles from '@/features/payments/components/payments.module.css';
import type { PaymentRoute } from '@/lib/catalogue';

/** A route's name, with the sandbox marked as a test payment in which no money moves. */
export function RouteLabel({ route }: { route: PaymentRoute }) {
  const { t } = useTranslation('payments');
  return (
    <span className={styles.routeName}>
      {t(`routes.${route.route}`)}
      {route.test && (
        <span className={styles.testBadge} data-testid="test-payment-badge">
          {t('testBadge')}
        </span>
      )}
    </span>
  );
}

/** The ways to pay this deployment offers (`paymentRoutes`), as the plans page lists them. */
export function PaymentMethods({ routes }: { routes: readonly PaymentRoute[] }) {
  const { t } = useTranslation('payments');
  return (
    <section className={styles.methods} data-testid="payment-methods">
      <h2 className={styles.sectionTitle}>{t('pricing.methodsTitle')}</h2>
      {routes.length === 0 ? (
        <p className={styles.muted}>{t('pricing.noMethods')}</p>
      ) : (
        <ul className={styles.methodList}>
          {routes.map((route) => (
            <li
              key={route.route}
              className={`${styles.method} ${route.test ? styles.methodTest : ''}`}
              data-route={route.route}
            >
              <RouteLabel route={route} />
              <span className={styles.faint}>{t(`routeNotes.${route.route}`)}</span>
            </li>
          ))}
        </ul>
      )}
      <p className={styles.faint}>{t('pricing.secure')}</p>
    </section>
  );
}
