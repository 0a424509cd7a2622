import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { buttonClassName } from '@/components/button';
import { ExploreIcon } from '@/components/icons';
import { LocalizedLink } from '@/components/localized-link';
import { Logo } from '@/components/logo';
import { usePageMeta } from '@/hooks/use-page-meta';
import { useLocalizedPath } from '@/hooks/use-localized-path';
import { ROUTES } from '@/lib/routes';
import { trackPageView } from '@/lib/telemetry';
import styles from '@/app/routes/not-found.module.css';

/** 'Not Found' with a Home button; logs the pageView event named 404 (spec section 2). */
export default function NotFoundPage() {
  const { t } = useTranslation();
  const localize = useLocalizedPath();
  usePageMeta({
    title: t('seo.notFound.title'),
    description: t('seo.notFound.description'),
    keywords: '',
    noIndex: true,
    breadcrumbs: [{ name: t('seo.breadcrumbHome'), path: localize(ROUTES.home) }],
  });
  useEffect(() => trackPageView('404'), []);
  return (
    <main className={styles.page} data-testid="not-found">
      <div className={styles.logo}>
        <Logo asHeading={false} label={t('header.home')} />
      </div>
      <div className={styles.code} aria-hidden="true">
        404
      </div>
      <h1 className={styles.title}>{t('notFound.title')}</h1>
      <p className={styles.text}>{t('notFound.text')}</p>
      <LocalizedLink to={ROUTES.home} className={buttonClassName()}>
        <ExploreIcon size={18} />
        {t('notFound.home')}
      </LocalizedLink>
    </main>
  );
}
