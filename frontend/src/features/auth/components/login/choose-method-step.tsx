import { useAtomValue } from 'jotai';
import type { ReactNode } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { globalWebConfigAtom } from '@/app/store';
import { DiscordIcon, GoogleIcon, IdCardIcon, MailIcon } from '@/components/icons';
import { LocalizedLink } from '@/components/localized-link';
import type { SignInProvider } from '@/features/auth/api/oauth';
import styles from '@/features/auth/components/login/login-modal.module.css';
import { StepHead } from '@/features/auth/components/login/step-head';
import { ROUTES } from '@/lib/routes';

interface ChooseMethodStepProps {
  onProvider: (provider: SignInProvider) => void;
  onEmail: () => void;
  onPassword: () => void;
  /** A Terms or Privacy link was followed: the modal closes. */
  onLeave: () => void;
}

/**
 * Step 1: Google and Discord (each says "Not available" when the server has no client id
 * for it), e-mail, ID and password, and the agreement linking Terms and Privacy.
 */
export function ChooseMethodStep({ onProvider, onEmail, onPassword, onLeave }: ChooseMethodStepProps) {
  const { t } = useTranslation();
  const { signIn } = useAtomValue(globalWebConfigAtom);
  const providers: { id: SignInProvider; label: string; icon: ReactNode; enabled: boolean }[] = [
    { id: 'google', label: t('login.google'), icon: <GoogleIcon size={20} />, enabled: signIn?.googleEnabled ?? true },
    {
      id: 'discord',
      label: t('login.discord'),
      icon: <DiscordIcon size={20} />,
      enabled: signIn?.discordEnabled ?? true,
    },
  ];

  return (
    <>
      <StepHead title={t('login.title')} subtitle={t('login.subtitle')} />
      {providers.map((provider) => (
        <button
          key={provider.id}
          type="button"
          className={`${styles.provider} ${styles[provider.id]}`}
          onClick={() => onProvider(provider.id)}
          disabled={!provider.enabled}
          aria-describedby={provider.enabled ? undefined : `login-${provider.id}-off`}
          data-testid={`login-${provider.id}`}
        >
          {provider.icon}
          <span>{provider.label}</span>
          {!provider.enabled && (
            <span className={styles.unavailable} id={`login-${provider.id}-off`}>
              {t('login.unavailable')}
            </span>
          )}
        </button>
      ))}
      <div className={styles.divider}>{t('login.or')}</div>
      <button
        type="button"
        className={`${styles.provider} ${styles.emailButton}`}
        onClick={onEmail}
        data-testid="login-email-method"
      >
        <MailIcon size={20} />
        {t('login.email')}
      </button>
      <button type="button" className={styles.textLink} onClick={onPassword} data-testid="login-id-method">
        <IdCardIcon size={18} />
        {t('login.idPassword')}
      </button>
      <p className={styles.agreement}>
        <Trans
          i18nKey="login.agreement"
          components={{
            terms: <LocalizedLink to={ROUTES.termsOfService} onClick={onLeave} />,
            privacy: <LocalizedLink to={ROUTES.privacyPolicy} onClick={onLeave} />,
          }}
        />
      </p>
    </>
  );
}
