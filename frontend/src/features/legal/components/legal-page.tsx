import { Suspense, useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { Spinner } from '@/components/splash';
import { LegalDocument } from '@/features/legal/components/legal-document';
import styles from '@/features/legal/components/legal-page.module.css';
import { LEGAL_DOCS, type LegalDocKey } from '@/features/legal/lib/legal-docs';
import { usePageMeta } from '@/hooks/use-page-meta';
import { useLocalizedPath } from '@/hooks/use-localized-path';
import { ROUTES } from '@/lib/routes';
import { trackPageView } from '@/lib/telemetry';

export interface LegalPageProps {
  docKey: LegalDocKey;
  /** The mobile app's view (`/privacyPolicyForApp`, ...): no shell and no heading. */
  embedded?: boolean;
}

/**
 * A legal page: title, description and keywords from `seo.<docKey>`, a page view named after
 * the document (`termsOfUse` for the terms, spec section 2) and the text itself.
 */
export default function LegalPage({ docKey, embedded = false }: LegalPageProps) {
  const { t } = useTranslation();
  const localize = useLocalizedPath();
  const title = t(`seo.${docKey}.title`);
  usePageMeta({
    title,
    description: t(`seo.${docKey}.description`),
    keywords: t(`seo.${docKey}.keywords`),
    // The app's copies duplicate the public pages; only those should be indexed.
    noIndex: embedded,
    breadcrumbs: [
      { name: t('seo.breadcrumbHome'), path: localize(ROUTES.home) },
      { name: title, path: localize(LEGAL_DOCS[docKey].path) },
    ],
  });
  useEffect(() => trackPageView(docKey), [docKey]);
  return (
    <div className={`${styles.page} ${embedded ? styles.embedded : ''}`} data-testid="legal-page">
      <Suspense fallback={<Spinner label={t('common.loading')} />}>
        <LegalDocument docKey={docKey} showTitle={!embedded} />
      </Suspense>
    </div>
  );
}
