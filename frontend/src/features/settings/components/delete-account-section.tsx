import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button } from '@/components/button';
import { TrashIcon, WarningIcon } from '@/components/icons';
import { Modal } from '@/components/modal';
import { deleteUser, type UserDetail } from '@/features/settings/api/account';
import styles from '@/features/settings/components/settings-page.module.css';
import { useLocalizedPath } from '@/hooks/use-localized-path';
import { ROUTES } from '@/lib/routes';
import { leaveSignedOut } from '@/lib/user';

/** Deleting needs the account's ID typed back: a deliberate act, the same in every language. */
export function confirmsDeletion(typed: string, userNo: string): boolean {
  return typed.trim().toUpperCase() === userNo.toUpperCase() && userNo !== '';
}

function DeleteAccountDialog({ open, userNo, onClose }: { open: boolean; userNo: string; onClose: () => void }) {
  const { t } = useTranslation();
  const localize = useLocalizedPath();
  const [typed, setTyped] = useState('');
  const [deleting, setDeleting] = useState(false);
  const confirmed = confirmsDeletion(typed, userNo);

  const close = () => {
    if (deleting) return;
    setTyped('');
    onClose();
  };

  const remove = async () => {
    if (!confirmed || deleting) return;
    setDeleting(true);
    try {
      const envelope = await deleteUser();
      if (envelope.success) {
        // Signed out everywhere: start again at home, which confirms the deletion.
        leaveSignedOut(`${localize(ROUTES.home)}?accountDeleted=1`);
        return;
      }
    } catch {
      // The API client already reported the failure.
    }
    setDeleting(false);
  };

  return (
    <Modal
      open={open}
      onClose={close}
      title={t('settings.deleteTitle')}
      closeLabel={t('common.close')}
      width={460}
      testId="delete-account-dialog"
    >
      <form
        className={styles.dialogBody}
        onSubmit={(event) => {
          event.preventDefault();
          void remove();
        }}
      >
        <span className={styles.dangerIcon}>
          <WarningIcon size={26} />
        </span>
        <h2 className={styles.dialogTitle}>{t('settings.deleteTitle')}</h2>
        <ul className={styles.consequences}>
          <li>{t('settings.deleteConsequenceData')}</li>
          <li>{t('settings.deleteConsequenceSessions')}</li>
          <li>{t('settings.deleteConsequenceWait')}</li>
        </ul>
        <label className={styles.field}>
          {t('settings.deleteConfirmLabel', { id: userNo })}
          <input
            className={styles.input}
            value={typed}
            onChange={(event) => setTyped(event.target.value)}
            autoComplete="off"
            spellCheck={false}
            placeholder={userNo}
            autoFocus
            data-testid="delete-confirm-input"
          />
        </label>
        <div className={styles.dialogActions}>
          <Button variant="secondary" onClick={close} disabled={deleting}>
            {t('settings.cancel')}
          </Button>
          <Button
            type="submit"
            className={styles.dangerButton}
            disabled={!confirmed || deleting}
            aria-busy={deleting}
            data-testid="delete-confirm"
          >
            <TrashIcon size={18} />
            {t('settings.deleteConfirmButton')}
          </Button>
        </div>
      </form>
    </Modal>
  );
}

/** The danger zone: deletes the account after an explicit confirmation. */
export function DeleteAccountSection({ detail }: { detail: UserDetail }) {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  return (
    <section
      className={`${styles.card} ${styles.danger}`}
      aria-labelledby="settings-delete"
      data-testid="settings-delete"
    >
      <div className={styles.row}>
        <div className={styles.rowText}>
          <h2 id="settings-delete" className={styles.cardTitle}>
            {t('settings.deleteSectionTitle')}
          </h2>
          <span className={styles.muted}>{t('settings.deleteSectionText')}</span>
        </div>
        <Button
          variant="secondary"
          className={styles.dangerOutline}
          onClick={() => setOpen(true)}
          data-testid="settings-delete-open"
        >
          <TrashIcon size={18} />
          {t('settings.deleteButton')}
        </Button>
      </div>
      <DeleteAccountDialog open={open} userNo={detail.userNo} onClose={() => setOpen(false)} />
    </section>
  );
}
