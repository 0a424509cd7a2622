import { useState, type ChangeEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Button } from '@/components/button';
import { KeyIcon } from '@/components/icons';
import { updateUserPassword, type UserDetail } from '@/features/settings/api/account';
import styles from '@/features/settings/components/settings-page.module.css';
import { ApiCode } from '@/lib/api-types';
import { notify } from '@/lib/notifications';

export const PASSWORD_MIN_LENGTH = 6;
export const PASSWORD_MAX_LENGTH = 20;

export interface PasswordForm {
  oldPassword: string;
  newPassword: string;
  confirm: string;
}

export type PasswordProblem = 'oldRequired' | 'length' | 'mismatch' | null;

/** What stops the form from being sent: the old password when one exists, 6–20 characters, a matching repeat. */
export function passwordProblem(form: PasswordForm, hasPassword: boolean): PasswordProblem {
  if (hasPassword && form.oldPassword === '') return 'oldRequired';
  const length = [...form.newPassword].length;
  if (length < PASSWORD_MIN_LENGTH || length > PASSWORD_MAX_LENGTH) return 'length';
  if (form.confirm !== form.newPassword) return 'mismatch';
  return null;
}

const EMPTY: PasswordForm = { oldPassword: '', newPassword: '', confirm: '' };

/** Sets the first password, or changes it with the old one; the ID is the name to log in with. */
export function PasswordSection({
  detail,
  onChange,
}: {
  detail: UserDetail;
  onChange: (change: Partial<UserDetail>) => void;
}) {
  const { t } = useTranslation();
  const [form, setForm] = useState<PasswordForm>(EMPTY);
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState('');
  const problem = passwordProblem(form, detail.hasPassword);

  const field = (key: keyof PasswordForm) => ({
    value: form[key],
    maxLength: PASSWORD_MAX_LENGTH,
    onChange: (event: ChangeEvent<HTMLInputElement>) => {
      setForm((previous) => ({ ...previous, [key]: event.target.value.slice(0, PASSWORD_MAX_LENGTH) }));
      setError('');
    },
  });

  const save = async () => {
    if (problem || saving) return;
    setSaving(true);
    setError('');
    try {
      const envelope = await updateUserPassword({
        ...(detail.hasPassword ? { oldPassword: form.oldPassword } : {}),
        newPassword: form.newPassword,
      });
      if (envelope.success) {
        notify.success(detail.hasPassword ? t('settings.passwordChanged') : t('settings.passwordSet'));
        setForm(EMPTY);
        onChange({ hasPassword: true });
      } else if (envelope.code === ApiCode.accountPwdError) {
        setError(t('settings.oldPasswordWrong'));
      } else if (envelope.code === ApiCode.rateLimited) {
        setError(t('login.tooManyAttempts'));
      } else {
        setError(envelope.msg || t('CommonErrorMsg'));
      }
    } catch {
      // The API client already reported the connection failure.
    } finally {
      setSaving(false);
    }
  };

  // Only explain a rule once the visitor has typed something it applies to.
  const hint =
    problem === 'length' && form.newPassword !== ''
      ? t('settings.passwordRule', { min: PASSWORD_MIN_LENGTH, max: PASSWORD_MAX_LENGTH })
      : problem === 'mismatch' && form.confirm !== ''
        ? t('settings.passwordMismatch')
        : '';

  return (
    <section className={styles.card} aria-labelledby="settings-password" data-testid="settings-password">
      <h2 id="settings-password" className={styles.cardTitle}>
        <KeyIcon size={20} />
        {detail.hasPassword ? t('settings.passwordChangeTitle') : t('settings.passwordSetTitle')}
      </h2>
      <p className={styles.muted}>{t('settings.passwordText', { id: detail.userNo })}</p>
      <form
        className={styles.stackForm}
        onSubmit={(event) => {
          event.preventDefault();
          void save();
        }}
      >
        {/* Lets password managers file the new password under the ID. */}
        <input type="text" name="username" autoComplete="username" value={detail.userNo} readOnly hidden />
        {detail.hasPassword && (
          <label className={styles.field}>
            {t('settings.oldPassword')}
            <input
              className={styles.input}
              type="password"
              autoComplete="current-password"
              {...field('oldPassword')}
              data-testid="settings-old-password"
            />
          </label>
        )}
        <div className={styles.twoColumns}>
          <label className={styles.field}>
            {t('settings.newPassword')}
            <input
              className={styles.input}
              type="password"
              autoComplete="new-password"
              placeholder={t('settings.passwordPlaceholder', { min: PASSWORD_MIN_LENGTH, max: PASSWORD_MAX_LENGTH })}
              {...field('newPassword')}
              data-testid="settings-new-password"
            />
          </label>
          <label className={styles.field}>
            {t('settings.confirmPassword')}
            <input
              className={styles.input}
              type="password"
              autoComplete="new-password"
              {...field('confirm')}
              data-testid="settings-confirm-password"
            />
          </label>
        </div>
        {hint && <p className={styles.fieldHint}>{hint}</p>}
        {error && (
          <p className={styles.fieldError} role="alert">
            {error}
          </p>
        )}
        <div className={styles.actions}>
          <Button
            type="submit"
            disabled={problem !== null || saving}
            aria-busy={saving}
            data-testid="settings-password-save"
          >
            {detail.hasPassword ? t('settings.passwordChangeButton') : t('settings.passwordSetButton')}
          </Button>
        </div>
      </form>
    </section>
  );
}
