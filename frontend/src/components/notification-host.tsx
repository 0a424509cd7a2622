import { useAtomValue } from 'jotai';
import { useTranslation } from 'react-i18next';
import { type NotificationKind, notificationsAtom } from '@/app/store';
import { CheckCircleIcon, CloseIcon, ErrorIcon, InfoIcon, WarningIcon } from '@/components/icons';
import styles from '@/components/notification-host.module.css';
import { dismissNotification } from '@/lib/notifications';

const ICONS: Record<NotificationKind, typeof InfoIcon> = {
  success: CheckCircleIcon,
  info: InfoIcon,
  warning: WarningIcon,
  error: ErrorIcon,
};

/** Renders the notifications at the top of the page (spec section 8). */
export function NotificationHost() {
  const items = useAtomValue(notificationsAtom);
  const { t } = useTranslation();
  return (
    <div className={styles.host} aria-live="polite">
      {items.map((item) => {
        const Icon = ICONS[item.kind];
        return (
          <div
            key={item.id}
            className={`${styles.item} ${styles[item.kind]}`}
            role={item.kind === 'error' ? 'alert' : 'status'}
          >
            <Icon size={20} className={styles.icon} />
            <div className={styles.text}>
              <div className={styles.title}>{t(`notifications.${item.kind}`)}</div>
              <div className={styles.message}>{item.message}</div>
            </div>
            <button
              type="button"
              className={styles.dismiss}
              onClick={() => dismissNotification(item.id)}
              aria-label={t('common.close')}
            >
              <CloseIcon size={16} />
            </button>
          </div>
        );
      })}
    </div>
  );
}
