import { useSetAtom } from 'jotai';
import { useTranslation } from 'react-i18next';
import { pcMenuCollapsedAtom } from '@/app/store';
import { ChevronLeftIcon, ChevronRightIcon } from '@/components/icons';
import { MenuTailLinks } from '@/features/shell/components/menu-tail-links';
import { NavList } from '@/features/shell/components/nav-list';
import styles from '@/features/shell/components/side-menu.module.css';
import { useSideMenuItems } from '@/features/shell/hooks/use-menu-items';
import { SIDE_MENU_COLLAPSED_WIDTH, SIDE_MENU_WIDTH } from '@/lib/site';

/** The wide-screen side menu: 240 px, or 80 px when collapsed (always on chat routes). */
export function SideMenu({ collapsed, forcedCollapsed }: { collapsed: boolean; forcedCollapsed: boolean }) {
  const { t } = useTranslation();
  const items = useSideMenuItems();
  const setCollapsed = useSetAtom(pcMenuCollapsedAtom);
  return (
    <aside
      className={`${styles.menu} ${collapsed ? styles.collapsed : ''}`}
      style={{ width: collapsed ? SIDE_MENU_COLLAPSED_WIDTH : SIDE_MENU_WIDTH }}
      data-testid="side-menu"
    >
      <NavList items={items} collapsed={collapsed} label={t('nav.mainNavigation')} />
      <div className={styles.grow} />
      {!collapsed && <MenuTailLinks />}
      {!forcedCollapsed && (
        <button
          type="button"
          className={styles.toggle}
          onClick={() => setCollapsed(!collapsed)}
          aria-label={collapsed ? t('nav.expandMenu') : t('nav.collapseMenu')}
        >
          {collapsed ? <ChevronRightIcon size={18} /> : <ChevronLeftIcon size={18} />}
        </button>
      )}
    </aside>
  );
}
