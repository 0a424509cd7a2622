import { useTranslation } from 'react-i18next';
import { Button } from '@/components/button';
import styles from '@/features/auth/components/login/login-modal.module.css';
import { StepHead } from '@/features/auth/components/login/step-head';
import { canLogIn, PASSWORD_MAX_LENGTH, USER_NO_MAX_LENGTH } from '@/features/auth/stores/login-flow';

interface PasswordStepProps {
  userNo: string;
  password: string;
  submitting: boolean;
  error: string;
  onUserNoChange: (userNo: string) => void;
  onPasswordChange: (password: string) => void;
  onSubmit: () => void;
}

/** Step 4: ID (at most 10 characters) and password (at most 20), and Log in once both are filled. */
export function PasswordStep({
  userNo,
  password,
  submitting,
  error,
  onUserNoChange,
  onPasswordChange,
  onSubmit,
}: PasswordStepProps) {
  const { t } = useTranslation();
  return (
    <form
      className={styles.form}
      onSubmit={(event) => {
        event.preventDefault();
        onSubmit();
      }}
    >
      <StepHead title={t('login.idTitle')} subtitle={t('login.idText')} />
      <label className={styles.field}>
        {t('login.idLabel')}
        <input
          className={styles.input}
          autoComplete="username"
          autoCapitalize="characters"
          spellCheck={false}
          maxLength={USER_NO_MAX_LENGTH}
          placeholder={t('login.idPlaceholder')}
          value={userNo}
          onChange={(event) => onUserNoChange(event.target.value)}
          autoFocus
          data-testid="login-id-input"
        />
      </label>
      <label className={styles.field}>
        {t('login.passwordLabel')}
        <input
          className={styles.input}
          type="password"
          autoComplete="current-password"
          maxLength={PASSWORD_MAX_LENGTH}
          placeholder={t('login.passwordPlaceholder')}
          value={password}
          onChange={(event) => onPasswordChange(event.target.value)}
          data-testid="login-password-input"
        />
      </label>
      {error && (
        <p className={styles.error} role="alert">
          {error}
        </p>
      )}
      <Button
        type="submit"
        block
        disabled={!canLogIn(userNo, password)}
        aria-busy={submitting}
        data-testid="login-password-submit"
      >
        {submitting ? t('login.loggingIn') : t('login.loginButton')}
      </Button>
    </form>
  );
}
