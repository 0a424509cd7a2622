import { useTranslation } from 'react-i18next';
import { LocalizedLink } from '@/components/localized-link';
import styles from '@/features/shell/components/menu-tail-links.module.css';
import { ROUTES } from '@/lib/routes';
import { AFFILIATE_URL, APP_VERSION, CONTACT_URL } from '@/lib/site';

/** The old-style links under the menu: Affiliate, Contact Us, Blog, Privacy Policy, Terms of Use. */
export function MenuTailLinks({ onNavigate }: { onNavigate?: () => void }) {
  const { t } = useTranslation();
  return (
    <div className={styles.tail}>
      <a href={AFFILIATE_URL} target="_blank" rel="noopener noreferrer">
        {t('nav.affiliate')}
      </a>
      <a href={CONTACT_URL} target="_blank" rel="noopener noreferrer">
        {t('nav.contactUs')}
      </a>
      <LocalizedLink to={ROUTES.blog} onClick={onNavigate}>
        {t('nav.blog')}
      </LocalizedLink>
      <LocalizedLink to={ROUTES.privacyPolicy} onClick={onNavigate}>
        {t('nav.privacyPolicy')}
      </LocalizedLink>
      <LocalizedLink to={ROUTES.termsOfUse} onClick={onNavigate}>
        {t('nav.termsOfUse')}
      </LocalizedLink>
      <span className={styles.version}>{t('footer.version', { version: APP_VERSION })}</span>
    </div>
  );
}
