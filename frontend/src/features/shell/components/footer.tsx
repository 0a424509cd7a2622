import { useAtomValue } from 'jotai';
import { useTranslation } from 'react-i18next';
import { hasSocialLinksAtom } from '@/app/store';
import { LocalizedLink } from '@/components/localized-link';
import { Logo } from '@/components/logo';
import styles from '@/features/shell/components/footer.module.css';
import { LanguageSelect } from '@/features/shell/components/language-select';
import { SocialLinks } from '@/features/shell/components/social-links';
import { LANDING_ROUTES, ROUTES } from '@/lib/routes';
import { APP_VERSION, CONTACT_URL, COPYRIGHT_YEAR, OPERATOR_NAME } from '@/lib/site';

function PopularLinks() {
  const { t } = useTranslation();
  return (
    <ul className={`${styles.links} ${styles.popular}`}>
      {LANDING_ROUTES.map(({ path, key }) => (
        <li key={path}>
          <LocalizedLink to={path}>{t(`landing.${key}`)}</LocalizedLink>
        </li>
      ))}
      <li>
        <LocalizedLink to={ROUTES.home}>{t('landing.aiGirlfriend')}</LocalizedLink>
      </li>
      <li>
        <LocalizedLink to={ROUTES.boyfriendHome}>{t('landing.aiBoyfriend')}</LocalizedLink>
      </li>
    </ul>
  );
}

function CompanyLine() {
  const { t } = useTranslation();
  return <span>{t('footer.copyright', { year: COPYRIGHT_YEAR, operator: OPERATOR_NAME })}</span>;
}

/**
 * Desktop footer: Navigator (Generate Image, Chat, Create Character, My AI, Contact Us),
 * Popular (landing pages and both homes), social icons and the 2257 compliance link.
 */
export function DesktopFooter() {
  const { t } = useTranslation();
  const hasSocial = useAtomValue(hasSocialLinksAtom);
  return (
    <footer className={styles.footer} data-testid="desktop-footer">
      <div className={styles.inner}>
        <div className={styles.grid}>
          <div className={styles.brandCol}>
            <Logo asHeading={false} label={t('header.home')} />
            <p className={styles.note}>{t('footer.adultsOnly')}</p>
            {hasSocial && (
              <div>
                <div className={styles.heading}>{t('footer.followUs')}</div>
                <SocialLinks />
              </div>
            )}
          </div>
          <div>
            <div className={styles.heading}>{t('footer.navigator')}</div>
            <ul className={styles.links}>
              <li>
                <LocalizedLink to={ROUTES.generateImage}>{t('nav.generateImage')}</LocalizedLink>
              </li>
              <li>
                <LocalizedLink to={ROUTES.chat}>{t('nav.chat')}</LocalizedLink>
              </li>
              <li>
                <LocalizedLink to={ROUTES.createCharacter}>{t('nav.createCharacter')}</LocalizedLink>
              </li>
              <li>
                <LocalizedLink to={ROUTES.myAi}>{t('nav.myAi')}</LocalizedLink>
              </li>
              <li>
                <a href={CONTACT_URL} target="_blank" rel="noopener noreferrer">
                  {t('nav.contactUs')}
                </a>
              </li>
            </ul>
          </div>
          <div>
            <div className={styles.heading}>{t('footer.popular')}</div>
            <PopularLinks />
          </div>
        </div>
        <div className={styles.bottom}>
          <CompanyLine />
          <div className={styles.bottomLinks}>
            <LocalizedLink to={ROUTES.compliance2257} className={styles.compliance}>
              {t('footer.compliance')}
            </LocalizedLink>
            <span>{t('footer.version', { version: APP_VERSION })}</span>
            <LanguageSelect />
          </div>
        </div>
      </div>
    </footer>
  );
}

/**
 * Mobile footer: Navigator (Generate, Chat, Create Character, My AI), Popular, Terms of Use,
 * Privacy Policy, social icons and the company line.
 */
export function MobileFooter() {
  const { t } = useTranslation();
  return (
    <footer className={`${styles.footer} ${styles.mobile}`} data-testid="mobile-footer">
      <div className={styles.inner}>
        <div className={styles.grid}>
          <div>
            <div className={styles.heading}>{t('footer.navigator')}</div>
            <ul className={styles.links}>
              <li>
                <LocalizedLink to={ROUTES.generateImage}>{t('nav.generate')}</LocalizedLink>
              </li>
              <li>
                <LocalizedLink to={ROUTES.chat}>{t('nav.chat')}</LocalizedLink>
              </li>
              <li>
                <LocalizedLink to={ROUTES.createCharacter}>{t('nav.createCharacter')}</LocalizedLink>
              </li>
              <li>
                <LocalizedLink to={ROUTES.myAi}>{t('nav.myAi')}</LocalizedLink>
              </li>
            </ul>
          </div>
          <div>
            <div className={styles.heading}>{t('footer.popular')}</div>
            <PopularLinks />
          </div>
        </div>
        <div className={styles.mobileLegal}>
          <LocalizedLink to={ROUTES.termsOfUse}>{t('nav.termsOfUse')}</LocalizedLink>
          <LocalizedLink to={ROUTES.privacyPolicy}>{t('nav.privacyPolicy')}</LocalizedLink>
        </div>
        <div className={styles.mobileBottom}>
          <SocialLinks />
          <LanguageSelect />
          <CompanyLine />
          <span>{t('footer.version', { version: APP_VERSION })}</span>
        </div>
      </div>
    </footer>
  );
}
