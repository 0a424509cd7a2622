import { useAtom, useAtomValue, useSetAtom } from 'jotai';
import { useCallback, useEffect, useRef, useState, useSyncExternalStore, type ReactNode } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { Button } from '@/components/button';
import { ArrowLeftIcon, DiscordIcon, GoogleIcon, IdCardIcon, MailIcon } from '@/components/icons';
import { LocalizedLink } from '@/components/localized-link';
import { Modal } from '@/components/modal';
import { sendRegisterUserEmail, userPasswordLogin } from '@/features/auth/api/login';
import { providerSignInUrl, type SignInProvider } from '@/features/auth/api/oauth';
import { BotCheck } from '@/features/auth/components/bot-check';
import { LOGIN_ART, pickLoginArt } from '@/features/auth/components/login-art';
import styles from '@/features/auth/components/login-modal.module.css';
import { BOT_CHECK_IDLE, type BotCheckState } from '@/features/auth/hooks/use-bot-check';
import { ApiCode } from '@/lib/api-types';
import { globalWebConfigAtom, languageAtom, showLoginTipAtom } from '@/lib/app-state';
import { notify } from '@/lib/notifications';
import { pageNavigation } from '@/lib/page-navigation';
import { ROUTES } from '@/lib/routes';
import { LOGIN_MODAL_NARROW_MAX_WIDTH } from '@/lib/site';
import { track } from '@/lib/telemetry';
import { userInfoAtom } from '@/lib/user';

export const LOGIN_STEPS = { choose: 1, email: 2, sent: 3, password: 4 } as const;
type Step = (typeof LOGIN_STEPS)[keyof typeof LOGIN_STEPS];

export const USER_NO_MAX_LENGTH = 10;
export const PASSWORD_MAX_LENGTH = 20;
/** How long 'Login successful' shows before the page reloads signed in. */
export const LOGIN_RELOAD_DELAY_MS = 800;
const MODAL_WIDTH = 567;
const MODAL_WIDTH_NARROW = 375;
const MAX_HEIGHT_MARGIN = 200;

const EMAIL_PATTERN = /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;

export function isValidEmail(value: string): boolean {
  return EMAIL_PATTERN.test(value.trim());
}

/** Email is enabled for a valid address with a bot-check token, and not while anything runs. */
export function canSendEmail(email: string, check: BotCheckState, sending: boolean): boolean {
  return isValidEmail(email) && check.status === 'verified' && !sending;
}

/** Log in is enabled once both ID and password are filled (spec section 5). */
export function canLogIn(userNo: string, password: string): boolean {
  return userNo.trim() !== '' && password !== '';
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
  const { signIn } = useAtomValue(globalWebConfigAtom);
  const language = useAtomValue(languageAtom);
  const setUserInfo = useSetAtom(userInfoAtom);
  const { narrow, width, maxHeight } = useModalSize();
  const [step, setStep] = useState<Step>(LOGIN_STEPS.choose);
  const [art, setArt] = useState(() => pickLoginArt(null));
  const [email, setEmail] = useState('');
  const [userNo, setUserNo] = useState('');
  const [password, setPassword] = useState('');
  const [check, setCheck] = useState<BotCheckState>(BOT_CHECK_IDLE);
  // A new key mounts a new bot check: a token is good for one send only.
  const [checkKey, setCheckKey] = useState(0);
  const [submitting, setSubmitting] = useState(false);
  // Guards against a second click before React has re-rendered the first one's state.
  const inFlight = useRef(false);
  const [error, setError] = useState('');

  const reset = useCallback(() => {
    setStep(LOGIN_STEPS.choose);
    setEmail('');
    setUserNo('');
    setPassword('');
    setCheck(BOT_CHECK_IDLE);
    setCheckKey((key) => key + 1);
    setSubmitting(false);
    inFlight.current = false;
    setError('');
  }, []);

  // However the prompt closes, it opens next time at step 1 with empty inputs and new art.
  const wasOpen = useRef(open);
  useEffect(() => {
    if (open) void track({ category: 'pageView', action: 'loginModal' });
    if (wasOpen.current && !open) {
      reset();
      setArt((previous) => pickLoginArt(previous));
    }
    wasOpen.current = open;
  }, [open, reset]);

  const close = () => setOpen(false);

  const goTo = (next: Step) => {
    setError('');
    setCheck(BOT_CHECK_IDLE);
    setCheckKey((key) => key + 1);
    setStep(next);
  };

  const signInWith = (provider: SignInProvider) => {
    trackRegistrationComplete(provider);
    pageNavigation.assign(providerSignInUrl(provider, window.location.href));
  };

  const sendEmail = async () => {
    if (!canSendEmail(email, check, submitting) || inFlight.current || !check.token) return;
    inFlight.current = true;
    setSubmitting(true);
    setError('');
    try {
      const envelope = await sendRegisterUserEmail({ emailAddress: email.trim(), cfToken: check.token });
      if (envelope.success && envelope.data) {
        trackRegistrationComplete('email');
        setStep(LOGIN_STEPS.sent);
        return;
      }
      // Codes the client knows are said in the visitor's language; others in the server's words.
      setError(
        envelope.code === ApiCode.reRegisterWait
          ? t('errors.accountDeleted')
          : envelope.code === ApiCode.rateLimited
            ? t('login.tooManyAttempts')
            : !envelope.success && envelope.msg
              ? envelope.msg
              : t('login.emailFailed'),
      );
    } catch {
      setError(t('login.emailFailed'));
    } finally {
      inFlight.current = false;
      setSubmitting(false);
    }
    // The token was spent: a fresh check is needed for the next attempt.
    setCheck(BOT_CHECK_IDLE);
    setCheckKey((key) => key + 1);
  };

  const loginWithPassword = async () => {
    if (!canLogIn(userNo, password) || inFlight.current) return;
    inFlight.current = true;
    setSubmitting(true);
    setError('');
    try {
      const envelope = await userPasswordLogin({ userNo: userNo.trim(), password });
      if (envelope.success) {
        notify.success(t('login.success'));
        if (envelope.data?.userInfo) setUserInfo(envelope.data.userInfo);
        setOpen(false);
        // The page reloads signed in, once the visitor has seen the message.
        setTimeout(() => pageNavigation.reload(), LOGIN_RELOAD_DELAY_MS);
        return;
      }
      setError(
        envelope.code === ApiCode.accountPwdError
          ? t('login.wrongPassword')
          : envelope.code === ApiCode.rateLimited
            ? t('login.tooManyAttempts')
            : t('login.failed'),
      );
    } catch {
      setError(t('login.failed'));
    }
    inFlight.current = false;
    setSubmitting(false);
  };

  const providers: { id: SignInProvider; label: string; icon: ReactNode; enabled: boolean }[] = [
    { id: 'google', label: t('login.google'), icon: <GoogleIcon size={20} />, enabled: signIn?.googleEnabled ?? true },
    { id: 'discord', label: t('login.discord'), icon: <DiscordIcon size={20} />, enabled: signIn?.discordEnabled ?? true },
  ];

  const onBotCheckChange = useCallback((state: BotCheckState) => setCheck(state), []);

  return (
    <Modal open={open} onClose={close} title={t('login.title')} closeLabel={t('common.close')} width={width} maxHeight={maxHeight} testId="login-modal">
      <div className={narrow ? styles.narrow : undefined} data-step={step} data-testid="login-step">
        {step !== LOGIN_STEPS.choose && (
          <button
            type="button"
            className={styles.back}
            aria-label={t('common.back')}
            data-testid="login-back"
            // Step 3's back button reloads the page (spec section 2).
            onClick={step === LOGIN_STEPS.sent ? () => pageNavigation.reload() : () => goTo(LOGIN_STEPS.choose)}
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
              {providers.map((provider) => (
                <button
                  key={provider.id}
                  type="button"
                  className={`${styles.provider} ${styles[provider.id]}`}
                  onClick={() => signInWith(provider.id)}
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
                onClick={() => goTo(LOGIN_STEPS.email)}
                data-testid="login-email-method"
              >
                <MailIcon size={20} />
                {t('login.email')}
              </button>
              <button type="button" className={styles.textLink} onClick={() => goTo(LOGIN_STEPS.password)} data-testid="login-id-method">
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
              className={styles.form}
              noValidate
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
              <BotCheck key={checkKey} config={signIn} language={language} onChange={onBotCheckChange} />
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
          )}

          {step === LOGIN_STEPS.sent && (
            <div className={styles.form} data-testid="login-sent">
              <span className={styles.sent}>
                <MailIcon size={30} />
              </span>
              <StepHead
                title={t('login.checkEmailTitle')}
                subtitle={
                  <Trans
                    i18nKey="login.checkEmailText"
                    values={{ email: email.trim() }}
                    components={{ address: <strong className={styles.address} data-testid="login-sent-address" /> }}
                  />
                }
              />
              <p className={styles.hint}>{t('login.checkEmailHint')}</p>
              <Button variant="secondary" block onClick={() => pageNavigation.reload()} data-testid="login-sent-done">
                {t('login.checkEmailDone')}
              </Button>
            </div>
          )}

          {step === LOGIN_STEPS.password && (
            <form
              className={styles.form}
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
                  autoCapitalize="characters"
                  spellCheck={false}
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
              <Button type="submit" block disabled={!canLogIn(userNo, password)} aria-busy={submitting} data-testid="login-password-submit">
                {submitting ? t('login.loggingIn') : t('login.loginButton')}
              </Button>
            </form>
          )}
        </div>
      </div>
    </Modal>
  );
}
