import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button } from '@/components/button';
import { CheckIcon, UserIcon } from '@/components/icons';
import { Modal } from '@/components/modal';
import { Spinner } from '@/components/splash';
import { getAvatarChoices, updateUserInfo } from '@/features/settings/api/account';
import styles from '@/features/settings/components/settings-page.module.css';
import { useLoad } from '@/hooks/use-load';
import type { UserInfo } from '@/lib/api-types';
import { notify } from '@/lib/notifications';

interface AvatarPickerProps {
  open: boolean;
  /** The current avatar path, '' for none. */
  current: string;
  onClose: () => void;
  onSaved: (user: UserInfo) => void;
}

/** A dialog of the site's character portraits (avatars must be `/media/<id>`), plus "none". */
export function AvatarPicker({ open, current, onClose, onSaved }: AvatarPickerProps) {
  const { t } = useTranslation();
  // Asked for when first opened and kept once had; a failure is asked again at the next opening.
  const [had, setHad] = useState(false);
  const load = useLoad(
    () =>
      getAvatarChoices().then((list) => {
        if (!list.length) throw new Error('no avatar choices');
        return list;
      }),
    [],
    { enabled: open || had },
  );
  if (!had && load.data) setHad(true);
  const choices = load.data ?? null;
  const failed = load.error !== null;
  const [saving, setSaving] = useState<string | null>(null);

  const choose = async (avatar: string) => {
    if (saving !== null) return;
    if (avatar === current) {
      onClose();
      return;
    }
    setSaving(avatar);
    try {
      const envelope = await updateUserInfo({ userAvatar: avatar });
      if (envelope.success) {
        notify.success(t('settings.saved'));
        onSaved(envelope.data);
      } else {
        notify.error(envelope.msg || t('CommonErrorMsg'));
      }
    } catch {
      // The API client already reported the connection failure.
    } finally {
      setSaving(null);
    }
  };

  return (
    <Modal
      open={open}
      onClose={onClose}
      title={t('settings.avatarTitle')}
      closeLabel={t('common.close')}
      width={560}
      testId="avatar-picker"
    >
      <div className={styles.dialogBody}>
        <h2 className={styles.dialogTitle}>{t('settings.avatarTitle')}</h2>
        <p className={styles.muted}>{t('settings.avatarText')}</p>
        {failed ? (
          <p className={styles.fieldError}>{t('settings.loadFailed')}</p>
        ) : !choices ? (
          <Spinner label={t('common.loading')} />
        ) : (
          <div className={styles.avatarGrid} role="listbox" aria-label={t('settings.avatarTitle')}>
            <button
              type="button"
              role="option"
              aria-selected={current === ''}
              aria-label={t('settings.noAvatar')}
              className={`${styles.avatarChoice} ${styles.avatarNone} ${current === '' ? styles.avatarChosen : ''}`}
              onClick={() => void choose('')}
              disabled={saving !== null}
            >
              <UserIcon size={28} />
            </button>
            {choices.map((src, index) => (
              <button
                key={src}
                type="button"
                role="option"
                aria-selected={current === src}
                aria-label={t('settings.avatarOption', { n: index + 1 })}
                className={`${styles.avatarChoice} ${current === src ? styles.avatarChosen : ''} ${saving === src ? styles.avatarSaving : ''}`}
                onClick={() => void choose(src)}
                disabled={saving !== null}
                data-testid="avatar-choice"
              >
                <img src={src} alt="" loading="lazy" />
                {current === src && (
                  <span className={styles.avatarTick}>
                    <CheckIcon size={14} />
                  </span>
                )}
              </button>
            ))}
          </div>
        )}
        <div className={styles.dialogActions}>
          <Button variant="secondary" onClick={onClose}>
            {t('settings.cancel')}
          </Button>
        </div>
      </div>
    </Modal>
  );
}
