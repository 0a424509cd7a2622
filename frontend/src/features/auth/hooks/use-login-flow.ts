import { useSetAtom } from 'jotai';
import { useCallback, useReducer, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { showLoginTipAtom, userInfoAtom } from '@/app/store';
import { sendRegisterUserEmail, userPasswordLogin } from '@/features/auth/api/login';
import { providerSignInUrl, type SignInProvider } from '@/features/auth/api/oauth';
import type { BotCheckState } from '@/features/auth/hooks/use-bot-check';
import {
  canLogIn,
  canSendEmail,
  LOGIN_FLOW_START,
  loginFlowReducer,
  type LoginFlowAction,
} from '@/features/auth/stores/login-flow';
import { ApiCode } from '@/lib/api-types';
import { notify } from '@/lib/notifications';
import { pageNavigation } from '@/lib/page-navigation';
import { track } from '@/lib/telemetry';

/** How long 'Login successful' shows before the page reloads signed in. */
export const LOGIN_RELOAD_DELAY_MS = 800;

/** The ad pixel's registration-complete event, sent before a provider redirect or after an e-mail. */
function trackRegistrationComplete(method: string) {
  const layer = (window as { dataLayer?: unknown[] }).dataLayer;
  layer?.push({ event: 'CompleteRegistration', method });
  void track({ category: 'conversion', action: 'registrationComplete', method });
}

/**
 * The login modal's state (stores/login-flow.ts) and what its steps do: the provider
 * redirects, the e-mail link request and the ID and password sign-in.
 */
export function useLoginFlow() {
  const { t } = useTranslation();
  const setOpen = useSetAtom(showLoginTipAtom);
  const setUserInfo = useSetAtom(userInfoAtom);
  const [state, dispatch] = useReducer(loginFlowReducer, LOGIN_FLOW_START);
  // Guards against a second click before React has re-rendered the first one's state.
  const inFlight = useRef(false);

  const reset = useCallback(() => {
    inFlight.current = false;
    dispatch({ type: 'closed' });
  }, []);

  const goTo = useCallback(
    (step: Extract<LoginFlowAction, { type: 'stepChosen' }>['step']) => dispatch({ type: 'stepChosen', step }),
    [],
  );
  const setEmail = useCallback((email: string) => dispatch({ type: 'emailTyped', email }), []);
  const setUserNo = useCallback((userNo: string) => dispatch({ type: 'userNoTyped', userNo }), []);
  const setPassword = useCallback((password: string) => dispatch({ type: 'passwordTyped', password }), []);
  const setCheck = useCallback((check: BotCheckState) => dispatch({ type: 'botCheckChanged', check }), []);

  const signInWith = useCallback((provider: SignInProvider) => {
    trackRegistrationComplete(provider);
    pageNavigation.assign(providerSignInUrl(provider, window.location.href));
  }, []);

  const { email, check, submitting, userNo, password } = state;

  const sendEmail = async () => {
    if (!canSendEmail(email, check, submitting) || inFlight.current || !check.token) return;
    inFlight.current = true;
    dispatch({ type: 'submitted' });
    try {
      // The link brings the visitor back to the page they asked from (a character's page, say).
      const returnTo = `${window.location.pathname}${window.location.search}`;
      const envelope = await sendRegisterUserEmail({ emailAddress: email.trim(), cfToken: check.token, returnTo });
      if (envelope.success && envelope.data) {
        trackRegistrationComplete('email');
        dispatch({ type: 'emailSent' });
        return;
      }
      // Codes the client knows are said in the visitor's language; others in the server's words.
      const error =
        envelope.code === ApiCode.reRegisterWait
          ? t('errors.accountDeleted')
          : envelope.code === ApiCode.rateLimited
            ? t('login.tooManyAttempts')
            : !envelope.success && envelope.msg
              ? envelope.msg
              : t('login.emailFailed');
      dispatch({ type: 'emailRefused', error });
    } catch {
      dispatch({ type: 'emailRefused', error: t('login.emailFailed') });
    } finally {
      inFlight.current = false;
    }
  };

  const logInWithPassword = async () => {
    if (!canLogIn(userNo, password) || inFlight.current) return;
    inFlight.current = true;
    dispatch({ type: 'submitted' });
    try {
      const envelope = await userPasswordLogin({ userNo: userNo.trim(), password });
      if (envelope.success) {
        notify.success(t('login.success'));
        if (envelope.data?.userInfo) setUserInfo(envelope.data.userInfo);
        // Closing resets the flow; the page reloads signed in, once the visitor has seen the message.
        setOpen(false);
        setTimeout(() => pageNavigation.reload(), LOGIN_RELOAD_DELAY_MS);
        return;
      }
      dispatch({
        type: 'loginRefused',
        error:
          envelope.code === ApiCode.accountPwdError
            ? t('login.wrongPassword')
            : envelope.code === ApiCode.rateLimited
              ? t('login.tooManyAttempts')
              : t('login.failed'),
      });
    } catch {
      dispatch({ type: 'loginRefused', error: t('login.failed') });
    }
    inFlight.current = false;
  };

  return { state, reset, goTo, setEmail, setUserNo, setPassword, setCheck, signInWith, sendEmail, logInWithPassword };
}
