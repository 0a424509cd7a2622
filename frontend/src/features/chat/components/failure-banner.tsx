import { useTranslation } from 'react-i18next';
import { CloseIcon } from '@/components/icons';
import { NeedPayCard } from '@/components/need-pay-offer';
import styles from '@/features/chat/components/chat.module.css';
import { chatErrorText } from '@/features/chat/lib/error-text';
import type { ChatFailure } from '@/features/chat/stores/chat-thread';
import { ApiCode } from '@/lib/api-types';

/**
 * Why the last chat action failed: known codes in the reader's language (`chatErrorText`),
 * others the server's message. `needPay` (no free messages left, a premium character, too
 * few tokens) is no error but an offer: the plans for free users, tokens for paid ones.
 */
export function FailureBanner({ failure, onDismiss }: { failure: ChatFailure; onDismiss: () => void }) {
  const { t } = useTranslation();
  if (failure.code === ApiCode.needPay) {
    return (
      <div className={styles.failureOffer} data-testid="chat-failure" data-code={failure.code}>
        <NeedPayCard onDismiss={onDismiss} reason="messages" />
      </div>
    );
  }
  const text = chatErrorText(t, failure.code, failure.msg);
  return (
    <div className={styles.failure} role="alert" data-testid="chat-failure" data-code={failure.code}>
      <span className={styles.failureText}>{text}</span>
      <button type="button" className={styles.toolButton} onClick={onDismiss} aria-label={t('chat.dismiss')}>
        <CloseIcon size={16} />
      </button>
    </div>
  );
}
