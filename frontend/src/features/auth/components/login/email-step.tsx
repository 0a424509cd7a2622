import { useAtomValue } from 'jotai';
import { useTranslation } from 'react-i18next';
import { globalWebConfigAtom, languageAtom } from '@/app/store';
import { Button } from '@/components/button';
import { MailIcon } from '@/components/icons';
import { BotCheck } from '@/features/auth/components/bot-check';
import styles from '@/features/auth/components/login/login-modal.module.css';
import { StepHead } from '@/features/auth/components/login/step-head';
import type { BotCheckState } from '@/features/auth/hooks/use-bot-check';
import { canSendEmail } from '@/features/auth/stores/login-flow';

interface EmailStepProps {
  email: string;
  check: BotCheckState;
  /** A new key mounts a new bot check. */
  checkKey: number;
  submitting: boolean;
  error: string;
  onEmailChange: (email: string) => void;
  onCheckChange: (check: BotCheckState) => void;
  onSubmit: () => void;
}

/** Step 2: the address, the bot check the server asks for, and the Email button. */
export function EmailStep({
  email,
  check,
  checkKey,
  submitting,
  error,
  onEmailChange,
  onCheckChange,
  onSubmit,
}: EmailStepProps) {
  const { t } = useTranslation();
  const { signIn } = useAtomValue(globalWebConfigAtom);
  const language = useAtomValue(languageAtom);
  return (
    <form
      className={styles.form}
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        onSubmit();
      }}
    >
      <StepHead title={t('login.emailTitle')} subtitle={t('login.emailText')} />
      <label className={styles.field}>
        {t('login.emailLabel')}
        <input
          className={styles.input}
          type="email"
          inputMode="email"
          autoComplete="email"
          placeholder={t('login.emailPlaceholder')}
          value={email}
          onChange={(event) => onEmailChange(event.target.value)}
          autoFocus
          data-testid="login-email-input"
        />
      </label>
      <BotCheck key={checkKey} config={signIn} language={language} onChange={onCheckChange} />
      {check.status === 'running' && (
        <p className={styles.hint} data-testid="bot-check-running">
          {t('login.botCheck')}
        </p>
      )}
      {error && (
        <p className={styles.error} role="alert">
          {error}
        </p>
      )}
      <Button
        type="submit"
        block
        disabled={!canSendEmail(email, check, submitting)}
        aria-busy={submitting}
        data-testid="login-email-submit"
      >
        <MailIcon size={18} />
        {submitting ? t('login.sending') : t('login.emailButton')}
      </Button>
    </form>
  );
}
