import { LocalizedLink } from '@/components/localized-link';
import styles from '@/features/shell/components/nav-list.module.css';
import type { MenuItem } from '@/features/shell/hooks/use-menu-items';
import { useRequireLogin } from '@/hooks/use-require-login';
import { useRoutePath } from '@/hooks/use-localized-path';

export interface NavListProps {
  items: MenuItem[];
  collapsed?: boolean;
  onNavigate?: () => void;
  label: string;
}

/** The menu entries of the side menu and the drawer, with the login guard applied. */
export function NavList({ items, collapsed = false, onNavigate, label }: NavListProps) {
  const path = useRoutePath();
  const requireLogin = useRequireLogin();
  return (
    <nav aria-label={label} className={collapsed ? styles.collapsed : undefined}>
      <ul className={styles.list}>
        {items.map((item) => {
          const active = item.isActive(path);
          return (
            <li key={item.key}>
              <LocalizedLink
                to={item.to}
                data-menu={item.key}
                title={collapsed ? item.label : undefined}
                aria-current={active ? 'page' : undefined}
                className={[styles.item, active ? styles.active : '', item.highlight ? styles.highlight : ''].join(' ')}
                onClick={(event) => {
                  if (item.guarded && !requireLogin()) {
                    event.preventDefault();
                    return;
                  }
                  onNavigate?.();
                }}
              >
                <item.Icon size={22} className={styles.icon} />
                <span className={styles.label}>{item.label}</span>
              </LocalizedLink>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}
