import { useEffect } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { buttonClassName } from '@/components/button';
import { ExploreIcon, MailIcon } from '@/components/icons';
import { LocalizedLink } from '@/components/localized-link';
import { Logo } from '@/components/logo';
import styles from '@/features/auth/components/check-email-page.module.css';
import { useLocalizedPath } from '@/hooks/use-localized-path';
import { usePageMeta } from '@/hooks/use-page-meta';
import { ROUTES } from '@/lib/routes';
import { trackPageView } from '@/lib/telemetry';

/**
 * `/checkEmailTip`, outside the main frame (spec section 2): the screen shown after a
 * sign-in link was sent, e.g. from the mobile app's embedded sign-in. `?email=` names the
 * address the link went to.
 */
export default function CheckEmailPage() {
  const { t } = useTranslation();
  const localize = useLocalizedPath();
  const [params] = useSearchParams();
  const email = (params.get('email') ?? '').trim().slice(0, 254);

  usePageMeta({
    title: t('seo.checkEmailTip.title'),
    description: t('seo.checkEmailTip.description'),
    keywords: '',
    noIndex: true,
    breadcrumbs: [
      { name: t('seo.breadcrumbHome'), path: localize(ROUTES.home) },
      { name: t('login.checkEmailTitle'), path: localize('/checkEmailTip') },
    ],
  });
  useEffect(() => trackPageView('checkEmailTip'), []);

  return (
    <main className={styles.page} data-testid="check-email-page">
      <div className={styles.logo}>
        <Logo asHeading={false} label={t('header.home')} />
      </div>
      <section className={styles.card}>
        <span className={styles.icon} aria-hidden="true">
          <MailIcon size={30} />
        </span>
        <h1 className={styles.title}>{t('login.checkEmailTitle')}</h1>
        {email ? (
          <p className={styles.text}>
            <Trans
              i18nKey="login.checkEmailText"
              values={{ email }}
              components={{ address: <strong className={styles.address} data-testid="check-email-address" /> }}
            />
          </p>
        ) : (
          <p className={styles.text}>{t('seo.checkEmailTip.description')}</p>
        )}
        <p className={styles.hint}>{t('login.checkEmailHint')}</p>
        <LocalizedLink to={ROUTES.home} className={buttonClassName({ block: true })}>
          <ExploreIcon size={18} />
          {t('notFound.home')}
        </LocalizedLink>
      </section>
    </main>
  );
}
