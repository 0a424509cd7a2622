import { useAtom } from 'jotai';
import { useEffect, useRef, useState, useSyncExternalStore } from 'react';
import { useTranslation } from 'react-i18next';
import { showLoginTipAtom } from '@/app/store';
import { ArrowLeftIcon } from '@/components/icons';
import { Modal } from '@/components/modal';
import { ChooseMethodStep } from '@/features/auth/components/login/choose-method-step';
import { EmailSentStep } from '@/features/auth/components/login/email-sent-step';
import { EmailStep } from '@/features/auth/components/login/email-step';
import { LOGIN_ART, pickLoginArt } from '@/features/auth/components/login/login-art';
import styles from '@/features/auth/components/login/login-modal.module.css';
import { PasswordStep } from '@/features/auth/components/login/password-step';
import { useLoginFlow } from '@/features/auth/hooks/use-login-flow';
import { LOGIN_STEPS } from '@/features/auth/stores/login-flow';
import { pageNavigation } from '@/lib/page-navigation';
import { LOGIN_MODAL_NARROW_MAX_WIDTH } from '@/lib/site';
import { track } from '@/lib/telemetry';

const MODAL_WIDTH = 567;
const MODAL_WIDTH_NARROW = 375;
const MAX_HEIGHT_MARGIN = 200;

function subscribeResize(onChange: () => void) {
  window.addEventListener('resize', onChange);
  return () => window.removeEventListener('resize', onChange);
}

/** Width 375 on screens of at most 480 px, else 567; height at most the screen minus 200. */
function useModalSize() {
  const width = useSyncExternalStore(subscribeResize, () => window.innerWidth);
  const height = useSyncExternalStore(subscribeResize, () => window.innerHeight);
  const narrow = width <= LOGIN_MODAL_NARROW_MAX_WIDTH;
  return {
    narrow,
    width: narrow ? MODAL_WIDTH_NARROW : MODAL_WIDTH,
    maxHeight: Math.max(320, height - MAX_HEIGHT_MARGIN),
  };
}

/**
 * The login prompt (spec section 2 "Login modal"): the frame around the four steps (one
 * component each), their back button and the decorative image. Closing resets it to step 1
 * with empty inputs and a new image.
 */
export default function LoginModal() {
  const { t } = useTranslation();
  const [open, setOpen] = useAtom(showLoginTipAtom);
  const { narrow, width, maxHeight } = useModalSize();
  const flow = useLoginFlow();
  const { state, reset, goTo } = flow;
  const [art, setArt] = useState(() => pickLoginArt(null));

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

  return (
    <Modal
      open={open}
      onClose={close}
      title={t('login.title')}
      closeLabel={t('common.close')}
      width={width}
      maxHeight={maxHeight}
      testId="login-modal"
    >
      <div className={narrow ? styles.narrow : undefined} data-step={state.step} data-testid="login-step">
        {state.step !== LOGIN_STEPS.choose && (
          <button
            type="button"
            className={styles.back}
            aria-label={t('common.back')}
            data-testid="login-back"
            // Step 3's back button reloads the page (spec section 2).
            onClick={state.step === LOGIN_STEPS.sent ? () => pageNavigation.reload() : () => goTo(LOGIN_STEPS.choose)}
          >
            <ArrowLeftIcon size={18} />
          </button>
        )}
        <div className={styles.art}>
          <img src={LOGIN_ART[art]} alt="" data-testid="login-art" data-art-index={art} />
        </div>
        <div className={styles.body}>
          {state.step === LOGIN_STEPS.choose && (
            <ChooseMethodStep
              onProvider={flow.signInWith}
              onEmail={() => goTo(LOGIN_STEPS.email)}
              onPassword={() => goTo(LOGIN_STEPS.password)}
              onLeave={close}
            />
          )}
          {state.step === LOGIN_STEPS.email && (
            <EmailStep
              email={state.email}
              check={state.check}
              checkKey={state.checkKey}
              submitting={state.submitting}
              error={state.error}
              onEmailChange={flow.setEmail}
              onCheckChange={flow.setCheck}
              onSubmit={() => void flow.sendEmail()}
            />
          )}
          {state.step === LOGIN_STEPS.sent && <EmailSentStep email={state.email} />}
          {state.step === LOGIN_STEPS.password && (
            <PasswordStep
              userNo={state.userNo}
              password={state.password}
              submitting={state.submitting}
              error={state.error}
              onUserNoChange={flow.setUserNo}
              onPasswordChange={flow.setPassword}
              onSubmit={() => void flow.logInWithPassword()}
            />
          )}
        </div>
      </div>
    </Modal>
  );
}
