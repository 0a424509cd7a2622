import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { CloseIcon } from '@/components/icons';
import { Logo } from '@/components/logo';
import { MenuTailLinks } from '@/features/shell/components/menu-tail-links';
import styles from '@/features/shell/components/mobile-drawer.module.css';
import { NavList } from '@/features/shell/components/nav-list';
import { useSideMenuItems } from '@/features/shell/hooks/use-menu-items';

/** The mobile left drawer (z-index 700) with the side menu's entries. */
export function MobileDrawer({ open, onClose }: { open: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  const items = useSideMenuItems();

  useEffect(() => {
    if (!open) return;
    const onKey = (event: KeyboardEvent) => event.key === 'Escape' && onClose();
    document.addEventListener('keydown', onKey);
    document.body.style.overflow = 'hidden';
    return () => {
      document.removeEventListener('keydown', onKey);
      document.body.style.overflow = '';
    };
  }, [open, onClose]);

  if (!open) return null;
  return (
    <>
      <div className={styles.backdrop} onClick={onClose} aria-hidden="true" />
      <div
        className={styles.panel}
        role="dialog"
        aria-modal="true"
        aria-label={t('nav.mainNavigation')}
        data-testid="mobile-drawer"
      >
        <div className={styles.top}>
          <Logo asHeading={false} compact label={t('header.home')} />
          <button type="button" className={styles.close} onClick={onClose} aria-label={t('nav.closeMenu')}>
            <CloseIcon size={20} />
          </button>
        </div>
        <NavList items={items} onNavigate={onClose} label={t('nav.mainNavigation')} />
        <div className={styles.grow} />
        <MenuTailLinks onNavigate={onClose} />
      </div>
    </>
  );
}
