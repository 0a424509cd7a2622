import { useTranslation } from 'react-i18next';
import { CloseIcon } from '@/components/icons';
import { LocalizedLink } from '@/components/localized-link';
import styles from '@/features/chat/components/chat.module.css';
import { chatErrorText } from '@/features/chat/lib/error-text';
import type { ChatFailure } from '@/features/chat/stores/chat-thread';
import { ApiCode } from '@/lib/api-types';
import { ROUTES } from '@/lib/routes';

/**
 * Why the last chat action failed: known codes in the reader's language (`chatErrorText`),
 * others the server's message; for `needPay` (no free messages left, or a premium
 * character) with the way to the plans.
 */
export function FailureBanner({ failure, onDismiss }: { failure: ChatFailure; onDismiss: () => void }) {
  const { t } = useTranslation();
  const needPay = failure.code === ApiCode.needPay;
  const text = chatErrorText(t, failure.code, failure.msg);
  return (
    <div className={`${styles.failure} ${needPay ? styles.failurePay : ''}`} role="alert" data-testid="chat-failure" data-code={failure.code}>
      <span className={styles.failureText}>{text}</span>
      {needPay && (
        <LocalizedLink to={ROUTES.pricing} className={styles.upgradeLink} data-testid="chat-upgrade">
          {t('chat.upgrade')}
        </LocalizedLink>
      )}
      <button type="button" className={styles.toolButton} onClick={onDismiss} aria-label={t('chat.dismiss')}>
        <CloseIcon size={16} />
      </button>
    </div>
  );
}
