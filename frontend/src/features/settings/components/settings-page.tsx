import { useAtomValue, useSetAtom } from 'jotai';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { gettingUserAtom, isLoggedInAtom, showLoginTipAtom } from '@/app/store';
import { Button } from '@/components/button';
import { SettingsIcon } from '@/components/icons';
import { Spinner } from '@/components/splash';
import { DeleteAccountSection } from '@/features/settings/components/delete-account-section';
import { PasswordSection } from '@/features/settings/components/password-section';
import { PersonaSection } from '@/features/settings/components/persona-section';
import { PlanSection } from '@/features/settings/components/plan-section';
import { PreferencesSection } from '@/features/settings/components/preferences-section';
import { ProfileSection } from '@/features/settings/components/profile-section';
import styles from '@/features/settings/components/settings-page.module.css';
import { useUserDetail } from '@/features/settings/hooks/use-user-detail';
import { useLocalizedPath } from '@/hooks/use-localized-path';
import { usePageMeta } from '@/hooks/use-page-meta';
import { ROUTES } from '@/lib/routes';
import { trackPageView } from '@/lib/telemetry';

/**
 * `/setting`: the signed-in person's name, avatar, ID and password, language, NSFW and
 * interested-gender preferences, and account deletion. Signed out, it offers to sign in.
 */
export default function SettingsPage() {
  const { t } = useTranslation();
  const getting = useAtomValue(gettingUserAtom);
  const loggedIn = useAtomValue(isLoggedInAtom);
  const openLogin = useSetAtom(showLoginTipAtom);
  const account = useUserDetail(loggedIn);

  const localize = useLocalizedPath();
  usePageMeta({
    title: t('settings.metaTitle'),
    description: t('settings.metaDescription'),
    keywords: '',
    noIndex: true,
    breadcrumbs: [
      { name: t('seo.breadcrumbHome'), path: localize(ROUTES.home) },
      { name: t('settings.title'), path: localize(ROUTES.setting) },
    ],
  });
  useEffect(() => trackPageView('setting'), []);

  let content;
  if (getting) {
    content = <Spinner label={t('common.loading')} />;
  } else if (!loggedIn) {
    content = (
      <section className={`${styles.card} ${styles.signedOut}`} data-testid="settings-signed-out">
        <span className={styles.signedOutIcon}>
          <SettingsIcon size={28} />
        </span>
        <h2 className={styles.cardTitle}>{t('settings.signedOutTitle')}</h2>
        <p className={styles.muted}>{t('settings.signedOutText')}</p>
        <Button onClick={() => openLogin(true)}>{t('header.signIn')}</Button>
      </section>
    );
  } else if (account.status === 'loading') {
    content = <Spinner label={t('common.loading')} />;
  } else if (account.status === 'failed') {
    content = (
      <section className={`${styles.card} ${styles.signedOut}`}>
        <p className={styles.muted}>{t('settings.loadFailed')}</p>
        <Button variant="secondary" size="small" onClick={account.reload}>
          {t('home.retry')}
        </Button>
      </section>
    );
  } else {
    content = (
      <>
        <ProfileSection detail={account.detail} onChange={account.patch} />
        <PersonaSection accountName={account.detail.userName} />
        <PlanSection />
        <PasswordSection detail={account.detail} onChange={account.patch} />
        <PreferencesSection detail={account.detail} onChange={account.patch} />
        <DeleteAccountSection detail={account.detail} />
      </>
    );
  }

  return (
    <div className={styles.page} data-testid="settings-page">
      <h1 className={styles.heading}>{t('settings.title')}</h1>
      {content}
    </div>
  );
}
