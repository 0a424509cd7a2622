import { useAtom, useAtomValue } from 'jotai';
import { useEffect, useState, useSyncExternalStore, type ReactNode } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { Button } from '@/components/button';
import { ArrowLeftIcon, DiscordIcon, GoogleIcon, IdCardIcon, MailIcon } from '@/components/icons';
import { LocalizedLink } from '@/components/localized-link';
import { Modal } from '@/components/modal';
import { sendRegisterUserEmail, userPasswordLogin } from '@/features/auth/api/login';
import { discordAuthorizeUrl, googleAuthorizeUrl } from '@/features/auth/api/oauth';
import { LOGIN_ART, pickLoginArt } from '@/features/auth/components/login-art';
import styles from '@/features/auth/components/login-modal.module.css';
import { BotCheckError, useBotCheck } from '@/features/auth/hooks/use-bot-check';
import { ApiCode } from '@/lib/api-types';
import { globalWebConfigAtom, showLoginTipAtom } from '@/lib/app-state';
import { notify } from '@/lib/notifications';
import { ROUTES } from '@/lib/routes';
import { LOGIN_MODAL_NARROW_MAX_WIDTH } from '@/lib/site';
import { track } from '@/lib/telemetry';

export const LOGIN_STEPS = { choose: 1, email: 2, sent: 3, password: 4 } as const;
type Step = (typeof LOGIN_STEPS)[keyof typeof LOGIN_STEPS];

export const USER_NO_MAX_LENGTH = 10;
export const PASSWORD_MAX_LENGTH = 20;
const MODAL_WIDTH = 567;
const MODAL_WIDTH_NARROW = 375;
const MAX_HEIGHT_MARGIN = 200;

const EMAIL_PATTERN = /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;

export function isValidEmail(value: string): boolean {
  return EMAIL_PATTERN.test(value.trim());
}

function subscribeResize(onChange: () => void) {
  window.addEventListener('resize', onChange);
  return () => window.removeEventListener('resize', onChange);
}

/** Width 375 on screens of at most 480 px, else 567; height at most the screen minus 200. */
function useModalSize() {
  const width = useSyncExternalStore(subscribeResize, () => window.innerWidth);
  const height = useSyncExternalStore(subscribeResize, () => window.innerHeight);
  const narrow = width <= LOGIN_MODAL_NARROW_MAX_WIDTH;
  return { narrow, width: narrow ? MODAL_WIDTH_NARROW : MODAL_WIDTH, maxHeight: Math.max(320, height - MAX_HEIGHT_MARGIN) };
}

/** The ad pixel's registration-complete event, sent before a provider redirect or after an e-mail. */
function trackRegistrationComplete(method: string) {
  const layer = (window as { dataLayer?: unknown[] }).dataLayer;
  layer?.push({ event: 'CompleteRegistration', method });
  void track({ category: 'conversion', action: 'registrationComplete', method });
}

function StepHead({ title, subtitle }: { title: string; subtitle?: ReactNode }) {
  return (
    <div className={styles.head}>
      <h2 className={styles.title}>{title}</h2>
      {subtitle && <p className={styles.subtitle}>{subtitle}</p>}
    </div>
  );
}

/**
 * The login prompt (spec section 2 "Login modal"): 1 choose a method, 2 e-mail with the bot
 * check, 3 link sent, 4 ID and password. Closing resets it to step 1 with empty inputs and
 * a new decorative image.
 */
export default function LoginModal() {
  const { t } = useTranslation();
  const [open, setOpen] = useAtom(showLoginTipAtom);
  const config = useAtomValue(globalWebConfigAtom);
  const { narrow, width, maxHeight } = useModalSize();
  const [step, setStep] = useState<Step>(LOGIN_STEPS.choose);
  const [art, setArt] = useState(() => pickLoginArt(null));
  const [email, setEmail] = useState('');
  const [userNo, setUserNo] = useState('');
  const [password, setPassword] = useState('');
  const [checking, setChecking] = useState(false);
  const [submitting, setSubmitting] = useState(false);
  const [error, setError] = useState('');
  const botCheck = useBotCheck(config.turnstileSiteKey);

  const reset = () => {
    setStep(LOGIN_STEPS.choose);
    setEmail('');
    setUserNo('');
    setPassword('');
    setChecking(false);
    setSubmitting(false);
    setError('');
    botCheck.remove();
  };

  const close = () => {
    setOpen(false);
    reset();
    setArt((previous) => pickLoginArt(previous));
  };

  useEffect(() => {
    if (open) void track({ category: 'pageView', action: 'loginModal' });
  }, [open]);

  const goBack = () => {
    botCheck.remove();
    setError('');
    setStep(LOGIN_STEPS.choose);
  };

  const redirectTo = (provider: 'google' | 'discord') => {
    const clientId = provider === 'google' ? config.googleClientId : config.discordClientId;
    if (!clientId) {
      notify.warning(t('login.providerUnavailable'));
      return;
    }
    trackRegistrationComplete(provider);
    const here = window.location.href;
    window.location.assign(
      provider === 'google'
        ? googleAuthorizeUrl(clientId, window.location.origin, here)
        : discordAuthorizeUrl(clientId, window.location.origin, here),
    );
  };

  const sendEmail = async () => {
    if (!isValidEmail(email) || checking || submitting) return;
    setError('');
    setChecking(true);
    let token: string;
    try {
      token = await botCheck.run();
    } catch (cause) {
      setChecking(false);
      if (!(cause instanceof BotCheckError && cause.timedOut)) setError(t('login.botCheckError'));
      return;
    }
    setChecking(false);
    setSubmitting(true);
    try {
      const envelope = await sendRegisterUserEmail({ emailAddress: email.trim(), cfToken: token });
      if (envelope.success && envelope.data) {
        trackRegistrationComplete('email');
        setStep(LOGIN_STEPS.sent);
      } else {
        botCheck.remove();
        setError(envelope.msg && !envelope.success ? envelope.msg : t('login.emailFailed'));
      }
    } catch {
      botCheck.remove();
      setError(t('login.emailFailed'));
    } finally {
      setSubmitting(false);
    }
  };

  const loginWithPassword = async () => {
    if (submitting || !userNo || !password) return;
    setSubmitting(true);
    setError('');
    try {
      const envelope = await userPasswordLogin({ userNo: userNo.trim(), password });
      if (envelope.success) {
        notify.success(t('login.success'));
        setOpen(false);
        reset();
        window.location.reload();
        return;
      }
      setError(envelope.code === ApiCode.accountPwdError ? t('login.wrongPassword') : t('login.failed'));
    } catch {
      setError(t('login.failed'));
    } finally {
      setSubmitting(false);
    }
  };

  const emailValid = isValidEmail(email);

  return (
    <Modal open={open} onClose={close} title={t('login.title')} closeLabel={t('common.close')} width={width} maxHeight={maxHeight} testId="login-modal">
      <div className={narrow ? styles.narrow : undefined} data-step={step}>
        {step !== LOGIN_STEPS.choose && (
          <button
            type="button"
            className={styles.back}
            aria-label={t('common.back')}
            data-testid="login-back"
            // Step 3's back button reloads the page (spec section 2).
            onClick={step === LOGIN_STEPS.sent ? () => window.location.reload() : goBack}
          >
            <ArrowLeftIcon size={18} />
          </button>
        )}
        <div className={styles.art}>
          <img src={LOGIN_ART[art]} alt="" data-testid="login-art" data-art-index={art} />
        </div>
        <div className={styles.body}>
          {step === LOGIN_STEPS.choose && (
            <>
              <StepHead title={t('login.title')} subtitle={t('login.subtitle')} />
              <button type="button" className={`${styles.provider} ${styles.google}`} onClick={() => redirectTo('google')}>
                <GoogleIcon size={20} />
                {t('login.google')}
              </button>
              <button type="button" className={`${styles.provider} ${styles.discord}`} onClick={() => redirectTo('discord')}>
                <DiscordIcon size={20} />
                {t('login.discord')}
              </button>
              <div className={styles.divider}>{t('login.or')}</div>
              <button
                type="button"
                className={`${styles.provider} ${styles.emailButton}`}
                onClick={() => setStep(LOGIN_STEPS.email)}
                data-testid="login-email-method"
              >
                <MailIcon size={20} />
                {t('login.email')}
              </button>
              <button type="button" className={styles.textLink} onClick={() => setStep(LOGIN_STEPS.password)} data-testid="login-id-method">
                <IdCardIcon size={18} />
                {t('login.idPassword')}
              </button>
              <p className={styles.agreement}>
                <Trans
                  i18nKey="login.agreement"
                  components={{
                    terms: <LocalizedLink to={ROUTES.termsOfService} onClick={close} />,
                    privacy: <LocalizedLink to={ROUTES.privacyPolicy} onClick={close} />,
                  }}
                />
              </p>
            </>
          )}

          {step === LOGIN_STEPS.email && (
            <form
              className={styles.body}
              style={{ padding: 0 }}
              onSubmit={(event) => {
                event.preventDefault();
                void sendEmail();
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
                  onChange={(event) => setEmail(event.target.value)}
                  autoFocus
                  data-testid="login-email-input"
                />
              </label>
              <div ref={botCheck.containerRef} className={styles.botCheck} />
              {checking && <p className={styles.hint}>{t('login.botCheck')}</p>}
              {error && (
                <p className={styles.error} role="alert">
                  {error}
                </p>
              )}
              <Button type="submit" block disabled={!emailValid || checking || submitting} data-testid="login-email-submit">
                <MailIcon size={18} />
                {t('login.emailButton')}
              </Button>
            </form>
          )}

          {step === LOGIN_STEPS.sent && (
            <>
              <span className={styles.sent}>
                <MailIcon size={30} />
              </span>
              <StepHead title={t('login.checkEmailTitle')} subtitle={t('login.checkEmailText', { email: email.trim() })} />
              <p className={styles.hint}>{t('login.checkEmailHint')}</p>
            </>
          )}

          {step === LOGIN_STEPS.password && (
            <form
              className={styles.body}
              style={{ padding: 0 }}
              onSubmit={(event) => {
                event.preventDefault();
                void loginWithPassword();
              }}
            >
              <StepHead title={t('login.idTitle')} subtitle={t('login.idText')} />
              <label className={styles.field}>
                {t('login.idLabel')}
                <input
                  className={styles.input}
                  autoComplete="username"
                  maxLength={USER_NO_MAX_LENGTH}
                  placeholder={t('login.idPlaceholder')}
                  value={userNo}
                  onChange={(event) => setUserNo(event.target.value.slice(0, USER_NO_MAX_LENGTH))}
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
                  onChange={(event) => setPassword(event.target.value.slice(0, PASSWORD_MAX_LENGTH))}
                  data-testid="login-password-input"
                />
              </label>
              {error && (
                <p className={styles.error} role="alert">
                  {error}
                </p>
              )}
              <Button type="submit" block disabled={!userNo || !password} aria-busy={submitting} data-testid="login-password-submit">
                {t('login.loginButton')}
              </Button>
            </form>
          )}
        </div>
      </div>
    </Modal>
  );
}
