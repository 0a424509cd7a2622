import { useTranslation } from 'react-i18next';
import { LocalizedLink } from '@/components/localized-link';
import styles from '@/features/shell/components/tab-bar.module.css';
import { useTabBarItems } from '@/features/shell/hooks/use-menu-items';
import { useRequireLogin } from '@/hooks/use-require-login';
import { useRoutePath } from '@/hooks/use-localized-path';

/** The mobile bottom tab bar; Chat and Pricing open the login prompt when signed out. */
export function TabBar() {
  const { t } = useTranslation();
  const items = useTabBarItems();
  const path = useRoutePath();
  const requireLogin = useRequireLogin();
  return (
    <nav className={styles.bar} aria-label={t('nav.tabBar')} data-testid="tab-bar">
      {items.map((item) => {
        const active = item.isActive(path);
        return (
          <LocalizedLink
            key={item.key}
            to={item.to}
            data-tab={item.key}
            aria-current={active ? 'page' : undefined}
            className={[styles.tab, active ? styles.active : '', item.highlight ? styles.highlight : ''].join(' ')}
            onClick={(event) => {
              if (item.guarded && !requireLogin()) event.preventDefault();
            }}
          >
            <item.Icon size={22} />
            <span>{item.label}</span>
          </LocalizedLink>
        );
      })}
    </nav>
  );
}
