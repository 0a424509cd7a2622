import { useAtomValue, useSetAtom } from 'jotai';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { languageAtom, userInfoAtom } from '@/app/store';
import { Button } from '@/components/button';
import { CheckIcon, CopyIcon, PencilIcon } from '@/components/icons';
import { updateUserInfo, type UserDetail } from '@/features/settings/api/account';
import { AvatarPicker } from '@/features/settings/components/avatar-picker';
import styles from '@/features/settings/components/settings-page.module.css';
import { ApiCode, type UserInfo } from '@/lib/api-types';
import { notify } from '@/lib/notifications';

export const USER_NAME_MAX_LENGTH = 30;

/** A name is 1–30 characters once trimmed (docs/api.md `updateUserInfo`). */
export function isValidUserName(name: string): boolean {
  const length = [...name.trim()].length;
  return length >= 1 && length <= USER_NAME_MAX_LENGTH;
}

interface SectionProps {
  detail: UserDetail;
  onChange: (change: Partial<UserDetail>) => void;
}

export function Avatar({ src, name, size }: { src: string | null; name: string; size: number }) {
  return (
    <span className={styles.avatar} style={{ width: size, height: size, fontSize: size * 0.4 }} aria-hidden="true">
      {src ? <img src={src} alt="" /> : (name.trim() || '?').slice(0, 1).toUpperCase()}
    </span>
  );
}

/** Name, avatar and the facts of the account: ID, e-mail, sign-in methods, member since. */
export function ProfileSection({ detail, onChange }: SectionProps) {
  const { t } = useTranslation();
  const language = useAtomValue(languageAtom);
  const setUserInfo = useSetAtom(userInfoAtom);
  const [name, setName] = useState(detail.userName);
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState('');
  const [picking, setPicking] = useState(false);
  const [copied, setCopied] = useState(false);

  const applyUser = (user: UserInfo) => {
    setUserInfo(user);
    onChange(user);
  };

  const saveName = async () => {
    if (!isValidUserName(name) || saving) return;
    setSaving(true);
    setError('');
    try {
      const envelope = await updateUserInfo({ userName: name.trim() });
      if (envelope.success) {
        applyUser(envelope.data);
        setName(envelope.data.userName);
        notify.success(t('settings.saved'));
      } else {
        setError(
          envelope.code === ApiCode.inputContentIllegal
            ? t('settings.contentNotAllowed')
            : envelope.msg || t('CommonErrorMsg'),
        );
      }
    } catch {
      // The API client already said the server could not be reached.
    } finally {
      setSaving(false);
    }
  };

  const copyId = async () => {
    try {
      await navigator.clipboard.writeText(detail.userNo);
      setCopied(true);
      setTimeout(() => setCopied(false), 1500);
    } catch {
      notify.info(t('settings.idIs', { id: detail.userNo }));
    }
  };

  const methods = [
    { key: 'email', label: t('settings.methodEmail'), on: Boolean(detail.email), value: detail.email },
    { key: 'google', label: 'Google', on: detail.googleLinked, value: null },
    { key: 'discord', label: 'Discord', on: detail.discordLinked || Boolean(detail.discordEmail), value: null },
    { key: 'password', label: t('settings.methodPassword'), on: detail.hasPassword, value: null },
  ];
  const since = new Intl.DateTimeFormat(language, { dateStyle: 'long' }).format(new Date(detail.createdAt * 1000));
  const nameChanged = name.trim() !== detail.userName;

  return (
    <section className={styles.card} aria-labelledby="settings-profile" data-testid="settings-profile">
      <h2 id="settings-profile" className={styles.cardTitle}>
        {t('settings.profileTitle')}
      </h2>
      <div className={styles.profileHead}>
        <button
          type="button"
          className={styles.avatarButton}
          onClick={() => setPicking(true)}
          aria-label={t('settings.changeAvatar')}
          data-testid="settings-avatar"
        >
          <Avatar src={detail.userAvatar || null} name={detail.userName} size={84} />
          <span className={styles.avatarEdit}>
            <PencilIcon size={14} />
          </span>
        </button>
        <div className={styles.identity}>
          <strong className={styles.identityName}>{detail.userName}</strong>
          <div className={styles.idRow}>
            <span className={styles.muted}>{t('settings.idLabel')}</span>
            <code className={styles.userNo} data-testid="settings-user-no">
              {detail.userNo}
            </code>
            <button
              type="button"
              className={styles.iconButton}
              onClick={() => void copyId()}
              aria-label={t('settings.copyId')}
            >
              {copied ? <CheckIcon size={16} /> : <CopyIcon size={16} />}
            </button>
          </div>
          <span className={styles.faint}>{t('settings.memberSince', { date: since })}</span>
        </div>
      </div>

      <form
        className={styles.inlineForm}
        onSubmit={(event) => {
          event.preventDefault();
          void saveName();
        }}
      >
        <label className={styles.field}>
          {t('settings.nameLabel')}
          <input
            className={styles.input}
            value={name}
            maxLength={USER_NAME_MAX_LENGTH}
            onChange={(event) => {
              setName(event.target.value);
              setError('');
            }}
            autoComplete="nickname"
            data-testid="settings-name-input"
          />
        </label>
        <Button
          type="submit"
          disabled={!nameChanged || !isValidUserName(name) || saving}
          aria-busy={saving}
          data-testid="settings-name-save"
        >
          {t('settings.save')}
        </Button>
      </form>
      {!isValidUserName(name) && <p className={styles.fieldError}>{t('settings.nameRule')}</p>}
      {error && (
        <p className={styles.fieldError} role="alert">
          {error}
        </p>
      )}

      <div className={styles.methods}>
        <span className={styles.label}>{t('settings.methodsTitle')}</span>
        <ul className={styles.chips}>
          {methods.map((method) => (
            <li
              key={method.key}
              className={`${styles.chip} ${method.on ? styles.chipOn : ''}`}
              data-method={method.key}
              data-on={method.on}
            >
              {method.on && <CheckIcon size={14} />}
              <span>{method.label}</span>
              {method.value && <span className={styles.chipValue}>{method.value}</span>}
              {!method.on && <span className={styles.chipValue}>{t('settings.notLinked')}</span>}
            </li>
          ))}
        </ul>
      </div>

      <AvatarPicker
        open={picking}
        current={detail.userAvatar || ''}
        onClose={() => setPicking(false)}
        onSaved={(user) => {
          applyUser(user);
          setPicking(false);
        }}
      />
    </section>
  );
}
