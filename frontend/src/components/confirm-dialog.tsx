import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button } from '@/components/button';
import styles from '@/components/confirm-dialog.module.css';
import { Modal } from '@/components/modal';

export interface ConfirmDialogProps {
  open: boolean;
  title: string;
  text: string;
  confirmLabel: string;
  /** Resolves once done; the dialog stays open (its button busy) until then. */
  onConfirm: () => Promise<unknown>;
  onClose: () => void;
  testId?: string;
}

/** Asks before something that cannot be undone (deleting a chat, a message, an image or a character). */
export function ConfirmDialog({ open, title, text, confirmLabel, onConfirm, onClose, testId }: ConfirmDialogProps) {
  const { t } = useTranslation();
  const [busy, setBusy] = useState(false);
  const confirm = async () => {
    setBusy(true);
    try {
      await onConfirm();
    } finally {
      setBusy(false);
    }
  };
  return (
    <Modal open={open} onClose={onClose} title={title} closeLabel={t('common.close')} width={400} testId={testId}>
      <div className={styles.confirm}>
        <h2 className={styles.confirmTitle}>{title}</h2>
        <p className={styles.confirmText}>{text}</p>
        <div className={styles.confirmActions}>
          <Button variant="secondary" size="small" onClick={onClose} disabled={busy}>
            {t('chat.cancel')}
          </Button>
          <Button
            size="small"
            className={styles.dangerButton}
            onClick={() => void confirm()}
            disabled={busy}
            data-testid="confirm-button"
          >
            {confirmLabel}
          </Button>
        </div>
      </div>
    </Modal>
  );
}
