import { useAtomValue } from 'jotai';
import { Suspense, useCallback, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Outlet, useLocation } from 'react-router';
import { pcMenuCollapsedAtom } from '@/app/store';
import { Spinner } from '@/components/splash';
import styles from '@/features/shell/components/app-shell.module.css';
import { DesktopFooter, MobileFooter } from '@/features/shell/components/footer';
import { Header } from '@/features/shell/components/header';
import { MobileDrawer } from '@/features/shell/components/mobile-drawer';
import { SideMenu } from '@/features/shell/components/side-menu';
import { TabBar } from '@/features/shell/components/tab-bar';
import { useIsMobile } from '@/hooks/use-media-query';
import { useRoutePath } from '@/hooks/use-localized-path';
import { isChatPath, isConversationPath } from '@/lib/routes';
import { SIDE_MENU_COLLAPSED_WIDTH, SIDE_MENU_WIDTH } from '@/lib/site';

/**
 * The main frame: header, side menu (wide screens) or drawer and tab bar (≤ 1024 px), the
 * routed page and the footer. Chat routes collapse the side menu to 80 px and have no
 * footer; an open conversation on a phone has no tab bar.
 */
export function AppShell() {
  const { t } = useTranslation();
  const mobile = useIsMobile();
  const path = useRoutePath();
  const { pathname } = useLocation();
  const chat = isChatPath(path);
  // An open conversation keeps its input at the bottom of a phone's screen: no tab bar there.
  const tabBar = mobile && !isConversationPath(path);
  const manuallyCollapsed = useAtomValue(pcMenuCollapsedAtom);
  const collapsed = chat || manuallyCollapsed;
  const menuWidth = collapsed ? SIDE_MENU_COLLAPSED_WIDTH : SIDE_MENU_WIDTH;
  const [drawerOpen, setDrawerOpen] = useState(false);
  const closeDrawer = useCallback(() => setDrawerOpen(false), []);

  // A new page (or the switch between phone and desktop layouts) closes the drawer, in the
  // render that shows it.
  const place = `${pathname}|${mobile}`;
  const [drawerFor, setDrawerFor] = useState(place);
  if (drawerFor !== place) {
    setDrawerFor(place);
    setDrawerOpen(false);
  }

  return (
    <>
      <Header mobile={mobile} menuWidth={menuWidth} onOpenDrawer={() => setDrawerOpen(true)} />
      {mobile ? (
        <>
          <MobileDrawer open={drawerOpen} onClose={closeDrawer} />
          {tabBar && <TabBar />}
        </>
      ) : (
        <SideMenu collapsed={collapsed} forcedCollapsed={chat} />
      )}
      <div className={`${styles.frame} ${tabBar ? styles.mobile : ''}`} style={{ paddingLeft: mobile ? 0 : menuWidth }}>
        <main className={styles.main}>
          <Suspense fallback={<Spinner label={t('common.loading')} />}>
            <Outlet />
          </Suspense>
        </main>
        {!chat && (mobile ? <MobileFooter /> : <DesktopFooter />)}
      </div>
    </>
  );
}
