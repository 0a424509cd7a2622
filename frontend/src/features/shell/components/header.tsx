import { useAtom, useAtomValue } from 'jotai';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { hasSocialLinksAtom, interestedGenderAtom } from '@/app/store';
import { GenderSwitch } from '@/components/gender-switch';
import { MenuIcon } from '@/components/icons';
import { Logo } from '@/components/logo';
import { HeaderAccount } from '@/features/shell/components/header-account';
import styles from '@/features/shell/components/header.module.css';
import { SocialLinks } from '@/features/shell/components/social-links';
import { useLocalizedPath, useRoutePath } from '@/hooks/use-localized-path';
import type { GenderValue } from '@/lib/api-types';
import { homePathFor, isHomePath, logoIsHeading, showsHeaderGenderSwitch } from '@/lib/routes';

export interface HeaderProps {
  mobile: boolean;
  menuWidth: number;
  onOpenDrawer: () => void;
}

/**
 * Logo, the gender switch (homes and character creation, wide screens only), social links,
 * the balance or the '70% OFF' link, and the profile menu or 'Sign in' (spec section 2).
 */
export function Header({ mobile, menuWidth, onOpenDrawer }: HeaderProps) {
  const { t } = useTranslation();
  const path = useRoutePath();
  const localize = useLocalizedPath();
  const navigate = useNavigate();
  const [gender, setGender] = useAtom(interestedGenderAtom);
  const hasSocial = useAtomValue(hasSocialLinksAtom);

  const onGenderChange = (next: GenderValue) => {
    setGender(next);
    // The homes force their gender, so switching there means going to the other home.
    if (isHomePath(path)) navigate(localize(homePathFor(next)));
  };

  return (
    <header className={`${styles.header} ${mobile ? styles.mobile : ''}`} data-testid="header">
      {mobile && (
        <button
          type="button"
          className={styles.burger}
          onClick={onOpenDrawer}
          aria-label={t('nav.openMenu')}
          data-testid="open-drawer"
        >
          <MenuIcon size={24} />
        </button>
      )}
      <div className={styles.brand} style={mobile ? undefined : { width: menuWidth }}>
        <Logo asHeading={logoIsHeading(path)} compact={mobile} label={t('header.home')} />
      </div>
      <div className={styles.center}>
        {!mobile && showsHeaderGenderSwitch(path) && (
          <GenderSwitch
            value={gender}
            onChange={onGenderChange}
            spacing={120}
            labels={{ group: t('gender.label'), girls: t('gender.girls'), guys: t('gender.guys') }}
            testId="header-gender-switch"
          />
        )}
      </div>
      <div className={styles.right}>
        {!mobile && hasSocial && (
          <>
            <SocialLinks />
            <span className={styles.divider} aria-hidden="true" />
          </>
        )}
        <HeaderAccount compact={mobile} />
      </div>
    </header>
  );
}
